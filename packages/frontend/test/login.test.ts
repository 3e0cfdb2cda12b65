import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedUpgrade } from '../../backend/test/server-ws-client.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { findStackTraces } from './page-problems.ts';

// The login screen: what a person sees with a wrong link or no login at all, that it does log them in, and that
// what the browser then sends to other servers on this machine opens nothing (docs/security.md).

const suite = useBrowserSuite({ host: 'in-process' });
/** The app's own login check answers 401 without a session, which Chromium logs as a console error. */
const notLoggedIn = [/status of 401 \(Unauthorized\)/];

describe('logging in', () => {
  it('refuses a wrong token with the login screen, sets no cookie, and logs in with the right one', async () => {
    const page = await suite.openPage({ expectedConsole: notLoggedIn });
    await page.goto('/login#token=wrong');
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

  it('logs in with the printed link and leaves no token in the address bar; refuses the old ?token= link', async () => {
    const token = suite.fixture.service.catalyst.token;
    const page = await suite.openLoggedInPage();
    expect(page.url()).toBe(`${suite.fixture.service.catalyst.url}/`);
    expect(await page.evaluate(() => history.length)).toBe(2);

    const old = await suite.openPage();
    await old.goto(`/login?token=${encodeURIComponent(token)}`);
    await old.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    expect(await old.context().cookies()).toEqual([]);
  });

  it('shows the login screen without a session, on the list and on an idea`s page', async () => {
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

describe('another server on this machine', () => {
  let other: Server | undefined;
  afterEach(async () => {
    const server = other;
    other = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => {
      server.close(resolve);
    });
  });

  it('gets nothing that opens Catalyst from a logged-in browser, on any port of the same host', async () => {
    const received: IncomingHttpHeaders[] = [];
    other = createServer((request, response) => {
      received.push(request.headers);
      response.setHeader('content-type', 'text/html');
      // Its own icon, inline: no favicon request that might come after this server has closed.
      response.end(
        '<!doctype html><title>another app</title><link rel="icon" href="data:,"><p>another app</p>',
      );
    });
    const port = await new Promise<number>((resolve) => {
      other?.listen(0, '127.0.0.1', () => {
        const address: AddressInfo | string | null | undefined = other?.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
    const catalystUrl = suite.fixture.service.catalyst.url;

    const page = await suite.openLoggedInPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByText('another app').waitFor();
    // The page there cannot read the session key: storage belongs to an origin, ports included.
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);

    const cookie = received.find((headers) => headers.cookie !== undefined)?.cookie;
    // A cookie is the host's, not the port's: the browser does send it (which is why it alone is worthless).
    expect(cookie).toContain('catalyst_session=');
    expect(cookie).not.toContain(suite.fixture.service.catalyst.token);
    for (const origin of [undefined, catalystUrl]) {
      const headers = { cookie: cookie ?? '', ...(origin === undefined ? {} : { origin }) };
      expect((await fetch(`${catalystUrl}/api/ideas`, { headers })).status).toBe(401);
      const wsUrl = `${catalystUrl.replace(/^http/, 'ws')}/ws`;
      expect(
        (await refusedUpgrade(wsUrl, { headers: { cookie: cookie ?? '' }, ...(origin ? { origin } : {}) }))
          .status,
      ).toBe(401);
    }
  });
});
