import jsQR from 'jsqr';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { refusedUpgrade } from '../../backend/test/server-ws-client.ts';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';

// Signed-in browsers and logging out (issue 25), in Chromium against the built app: the list from the ideas
// page, signing another browser out (its page falls back to the login screen by itself), and logging out, after
// which the old cookie and key open nothing. Then a phone paired through the QR code of "Open on another device"
// (issue 29): signed in once, listed, signed out from the desktop.

const suite = useBrowserSuite({ host: 'in-process' });
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

const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true };
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Mobile Safari/537.36';

/** What the QR code on screen says, as a camera would read it: the SVG drawn on a canvas, decoded by jsQR. */
async function decodeQrCode(svg: Locator): Promise<string | undefined> {
  const image = await svg.evaluate(async (element) => {
    const size = 8 * (element instanceof SVGSVGElement ? element.viewBox.baseVal.width : 0);
    const picture = new Image(size, size);
    picture.src = `data:image/svg+xml;base64,${btoa(new XMLSerializer().serializeToString(element))}`;
    await picture.decode();
    const canvas = Object.assign(document.createElement('canvas'), { width: size, height: size });
    const context = canvas.getContext('2d');
    context?.drawImage(picture, 0, 0, size, size);
    return { size, pixels: Array.from(context?.getImageData(0, 0, size, size).data ?? []) };
  });
  return jsQR(Uint8ClampedArray.from(image.pixels), image.size, image.size)?.data;
}

describe('pairing a phone', () => {
  it('signs a phone in through the QR code once; the desktop lists it and signs it out', async () => {
    const catalystUrl = suite.fixture.service.catalyst.url;
    const desktop = await suite.openLoggedInPage();
    await desktop.getByRole('button', { name: 'Open on another device' }).click();
    const pairing = desktop.getByRole('dialog', { name: 'Open on another device' });
    const link = await pairing.getByRole('textbox', { name: 'Link' }).inputValue();
    expect(link).toMatch(new RegExp(`^${catalystUrl}/pair#code=[\\w-]{43}$`));
    expect(await decodeQrCode(pairing.getByRole('img', { name: 'QR code of the link below' }))).toBe(link);
    expect(await findAxeViolations(desktop)).toEqual([]);
    await pairing.getByRole('button', { name: 'Close' }).click();

    const phone = await suite.openPage({
      device: PHONE,
      userAgent: ANDROID_CHROME,
      expectedConsole: signedOut,
    });
    await phone.goto(link);
    await phone.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
    // The code is gone from the address bar (and so from the history a Back or a reload would post again).
    expect(phone.url()).toBe(`${catalystUrl}/`);

    await desktop.getByRole('button', { name: 'Signed-in browsers' }).click();
    const list = desktop.getByRole('dialog', { name: 'Signed-in browsers' });
    const phoneRow = list.getByRole('listitem').filter({ hasText: 'Chrome on Android' });
    await expect.poll(() => phoneRow.textContent()).toContain('Paired');
    await list.getByRole('button', { name: 'Sign out Chrome on Android' }).click();
    await phone.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();

    // The same link again: used up, and the phone is told so in a sentence.
    await phone.goto(link);
    await phone.getByText('This pairing link was already used or has expired').waitFor();
    expect(phone.url()).toBe(`${catalystUrl}/`);
  });
});
