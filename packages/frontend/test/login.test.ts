import { describe, expect, it } from 'vitest';
import { useBrowserSuite } from './browser-harness.ts';
import { findStackTraces } from './page-problems.ts';

// The login screen: what a person sees with a wrong link or no cookie at all, and that it does log them in.

const suite = useBrowserSuite();
/** The app's own login check answers 401 without a cookie, which Chromium logs as a console error. */
const notLoggedIn = [/status of 401 \(Unauthorized\)/];

describe('logging in', () => {
  it('refuses a wrong token with the login screen, sets no cookie, and logs in with the right one', async () => {
    const page = await suite.openPage();
    await page.goto('/login?token=wrong');
    await page.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.getByRole('heading', { name: 'Ideas', exact: true }).count()).toBe(0);
    expect(await findStackTraces(page)).toEqual([]);

    await page.getByLabel('Access token').fill(suite.fixture.service.catalyst.token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('shows the login screen without a cookie, on the list and on an idea`s page', async () => {
    const page = await suite.openPage({ expectedConsole: notLoggedIn });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    expect(await page.getByLabel('Access token').getAttribute('type')).toBe('password');
    expect(await findStackTraces(page)).toEqual([]);

    await page.goto('/ideas/idea-0000000000000000');
    await page.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    expect(await page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
  });
});
