import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { startTcpProxy } from '@catalyst/testkit';
import { loginLink } from '../../backend/src/auth/routes-login.ts';
import { OFFLINE_TITLE } from '../src/shell/offline-shell.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { ideaHeading } from './idea-page.ts';

// Catalyst as an installable app (issue 29): Chromium finds nothing missing to install it; its service worker
// controls the page; with Catalyst stopped a page load shows the offline page (never the idea as it was), which
// comes back by itself once Catalyst answers; the API is never answered from the worker's cache.

const suite = useBrowserSuite({ host: 'in-process' });

/**
 * While Catalyst is down the proxy closes each connection unanswered, which Chromium logs: the page's requests
 * then (the idea page's, the offline page's questions, the test's own API request) and, if its timing brings one
 * there, a reconnect of the WebSocket.
 */
// How Chromium words a request to a proxy with nothing behind it depends on when the request meets the closed socket.
const unreachable = [
  /Failed to load resource: net::ERR_(EMPTY_RESPONSE|SOCKET_NOT_CONNECTED|CONNECTION_RESET|CONNECTION_CLOSED)/,
  /WebSocket connection to .* failed/,
];

const ManifestSchema = z.object({
  id: z.string(),
  name: z.string(),
  short_name: z.string(),
  description: z.string(),
  start_url: z.string(),
  scope: z.string(),
  display: z.string(),
  theme_color: z.string(),
  background_color: z.string(),
  icons: z.array(z.object({ src: z.string(), sizes: z.string(), type: z.string(), purpose: z.string() })),
});

const InstallabilitySchema = z.object({
  installabilityErrors: z.array(z.object({ errorId: z.string() })),
});
const AppManifestSchema = z.object({ url: z.string(), errors: z.array(z.unknown()), data: z.string() });

/** A PNG's width and height, from its IHDR chunk (bytes 16 to 23). */
function pngSize(bytes: Buffer): string {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

/** Every URL the service worker's caches hold, as paths. */
function cachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      const requests = await (await caches.open(name)).keys();
      paths.push(...requests.map((request) => new URL(request.url).pathname));
    }
    return paths;
  });
}

/** `ok <status>` for an answer, `failed` when the fetch found nobody; with the page's login, as the app asks. */
function fetchIdeas(page: Page): Promise<string> {
  return page.evaluate(
    (header) =>
      fetch('/api/ideas', { headers: { [header]: localStorage.getItem('catalyst.sessionKey') ?? '' } }).then(
        (response) => `ok ${response.status}`,
        () => 'failed',
      ),
    SESSION_KEY_HEADER,
  );
}

describe('the installable app', () => {
  it('installs by Chromium`s own criteria, works offline as an offline page only, and comes back by itself', async () => {
    const { service } = suite.fixture;
    // One origin across the restart (a service worker belongs to its origin), whatever port Catalyst gets.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
    onTestFinished(() => proxy.close());
    const title = 'An idea to read on the train';
    const idea = await service.createIdea(title);
    const page = await suite.openLoggedInPage({
      origin: proxy.url,
      expectedConsole: unreachable,
      serviceWorkers: 'allow',
    });

    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    expect(
      await page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        return { scope: registration.scope, state: registration.active?.state };
      }),
    ).toEqual({ scope: `${proxy.url}/`, state: 'activated' });

    const cdp = await page.context().newCDPSession(page);
    const installability = InstallabilitySchema.parse(await cdp.send('Page.getInstallabilityErrors'));
    // Playwright's browser contexts are off the record, which Chromium never installs from; it still checks and
    // lists every other criterion (a page with no manifest adds `no-manifest`, a missing icon
    // `no-acceptable-icon`), and this page misses none.
    expect(installability.installabilityErrors.map((error) => error.errorId)).toEqual(['in-incognito']);
    const appManifest = AppManifestSchema.parse(await cdp.send('Page.getAppManifest'));
    expect(appManifest.url).toBe(`${proxy.url}/manifest.webmanifest`);
    expect(appManifest.errors).toEqual([]);
    const manifest = ManifestSchema.parse(JSON.parse(appManifest.data));
    expect(manifest).toMatchObject({
      name: 'Catalyst',
      display: 'standalone',
      start_url: '/',
      scope: '/',
      id: '/',
    });
    const pngs = manifest.icons.filter((icon) => icon.type === 'image/png');
    expect(pngs.map((icon) => `${icon.purpose} ${icon.sizes}`).sort()).toEqual([
      'any 192x192',
      'any 512x512',
      'maskable 192x192',
      'maskable 512x512',
    ]);
    for (const icon of pngs) {
      const response = await page.request.get(icon.src);
      expect(response.headers()['content-type'], icon.src).toBe('image/png');
      expect(pngSize(await response.body()), icon.src).toBe(icon.sizes);
    }

    // A client route, loaded through the worker, is the live idea; the API answers.
    await page.goto(`/ideas/${idea.id}`);
    await ideaHeading(page, title).waitFor();
    expect(await fetchIdeas(page)).toBe('ok 200');
    const cached = await cachedPaths(page);
    expect(cached).toContain('/offline.html');
    expect(
      cached.filter(
        (path) => !/^\/(assets|icons)\/|^\/(index|offline)\.html$|^\/manifest\.webmanifest$/.test(path),
      ),
    ).toEqual([]);

    // Catalyst's close waits for every connection that is not idle, and a socket Chromium opened ahead of need
    // (no request on it yet) is not, until Node's headers timeout: so none reaches it while it closes. Released
    // with nobody behind it, connections then fail at once.
    proxy.hold();
    proxy.dropConnections();
    await service.stop();
    proxy.release();
    await page.reload();
    await page.getByRole('heading', { name: OFFLINE_TITLE }).waitFor();
    expect(await page.title()).toBe(OFFLINE_TITLE);
    expect(new URL(page.url()).pathname).toBe(`/ideas/${idea.id}`);
    expect(await page.getByText(title).count(), 'the idea as it was, shown as if live').toBe(0);
    expect(await fetchIdeas(page), 'the API answered from a cache').toBe('failed');

    proxy.retarget((await suite.restartService()).catalyst.port);
    await ideaHeading(page, title).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ideas/${idea.id}`);
    expect(await page.title()).not.toBe(OFFLINE_TITLE);

    // The login link still logs in with the worker in control: /login is never answered from its cache.
    await page.goto(loginLink('', suite.fixture.service.catalyst.token));
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  });
});
