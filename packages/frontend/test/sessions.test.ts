import { describe, expect, it } from 'vitest';
import { refusedUpgrade } from '../../backend/test/server-ws-client.ts';
import { useBrowserSuite } from './browser-harness.ts';

// Signed-in browsers and logging out (issue 25), in Chromium against the built app: the list from the ideas
// page, signing another browser out (its page falls back to the login screen by itself), and logging out, after
// which the old cookie and key open nothing.

const suite = useBrowserSuite();
/** After a sign-out the page's login check and its WebSocket's reconnect are refused, which Chromium logs. */
const signedOut = [
  /status of 401 \(Unauthorized\)/,
  /HTTP Authentication failed; no valid credentials available/,
];

describe('signed-in browsers', () => {
  it('lists this browser, signs another one out, and logs out to the login screen for good', async () => {
    const page = await suite.openLoggedInPage({ expectedConsole: signedOut });
    const other = await suite.openLoggedInPage({ expectedConsole: signedOut });

    await page.getByRole('button', { name: 'Signed-in browsers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Signed-in browsers' });
    const rows = dialog.getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(2);
    const mine = rows.filter({ hasText: 'This browser' });
    expect(await mine.locator('strong').textContent()).toBe('Chrome on Linux');

    await dialog.getByRole('button', { name: 'Sign out Chrome on Linux' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('This browser');
    // The other page learns it without a reload: its WebSocket is closed and its reconnect refused.
    await other.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();

    const catalystUrl = suite.fixture.service.catalyst.url;
    const cookie = (await page.context().cookies()).find((c) => c.name === 'catalyst_session');
    const key = await page.evaluate(() => localStorage.getItem('catalyst.sessionKey'));
    expect(cookie).toBeDefined();
    expect(key).not.toBeNull();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem('catalyst.sessionKey'))).toBeNull();

    // The old cookie and key, replayed: refused on the API and the WebSocket.
    const oldCookie = `catalyst_session=${cookie?.value ?? ''}`;
    const headers = { cookie: oldCookie, 'x-catalyst-key': key ?? '', origin: catalystUrl };
    expect((await fetch(`${catalystUrl}/api/ideas`, { headers })).status).toBe(401);
    const upgrade = await refusedUpgrade(`${catalystUrl.replace(/^http/, 'ws')}/ws`, {
      headers: { cookie: oldCookie },
      origin: catalystUrl,
      protocols: [`catalyst-key.${key ?? ''}`],
    });
    expect(upgrade.status).toBe(401);

    // A reload stays at the login screen; logging in again works.
    await page.reload();
    await page.getByLabel('Access token').fill(suite.fixture.service.catalyst.token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
  });
});
