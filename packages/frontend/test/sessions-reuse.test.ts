import { describe, expect, it } from 'vitest';
import { loginLink } from '../../backend/src/auth/routes-login.ts';
import { useBrowserSuite } from './browser-harness.ts';

// The signed-in list does not pile up (issue 40, item 19): opening the login link again in a browser that is
// signed in keeps its session; "Sign out all others" ends every other one at once.

const suite = useBrowserSuite({ host: 'in-process' });
/** The signed-out browser's page is refused by the server, which Chromium logs. */
const signedOut = [
  /status of 401 \(Unauthorized\)/,
  /HTTP Authentication failed; no valid credentials available/,
];

describe('signed-in browsers, again', () => {
  it('reuses this browser`s session on a second login link, and signs out all the others at once', async () => {
    const page = await suite.openLoggedInPage({ expectedConsole: signedOut });
    const others = [
      await suite.openLoggedInPage({ expectedConsole: signedOut }),
      await suite.openLoggedInPage({ expectedConsole: signedOut }),
    ];
    const cookieBefore = (await page.context().cookies()).find((c) => c.name === 'catalyst_session')?.value;
    for (let opened = 0; opened < 2; opened += 1) {
      await page.goto(loginLink('', suite.fixture.service.catalyst.token));
      await page.getByRole('button', { name: 'Signed-in browsers' }).waitFor();
    }
    const cookieAfter = (await page.context().cookies()).find((c) => c.name === 'catalyst_session')?.value;
    expect(cookieAfter, 'the same session cookie').toBe(cookieBefore);

    await page.getByRole('button', { name: 'Signed-in browsers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Signed-in browsers' });
    const rows = dialog.getByRole('listitem');
    await expect.poll(() => rows.count(), { message: 'this browser once, and the two others' }).toBe(3);

    await dialog.getByRole('button', { name: 'Sign out all others' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('This browser');
    for (const other of others) await other.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Sign out all others' }).count()).toBe(0);
  });
});
