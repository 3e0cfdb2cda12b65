import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrowserSessionListResponseSchema, type BrowserSessionView } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openClient, refusedUpgrade, type TestClient } from './server-ws-client.ts';

/**
 * Browser sessions (issue 25, finding 14), through the whole composition over HTTP: the list of signed-in
 * browsers, signing one out (its API calls and its WebSocket refused, an open WebSocket closed), logging out, the
 * expiry after CATALYST_SESSION_DAYS (on a clock the test moves), and the sessions file across a restart.
 */

const TOKEN = 'browser-logins-test-token-0123456789abcdefgh';
const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';
const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 15; Mobile; rv:140.0) Gecko/140.0 Firefox/140.0';
const DAY_MS = 24 * 60 * 60_000;

let dir: TempDir | undefined;
let catalyst: RunningCatalyst | undefined;
let clock = Date.parse('2030-01-01T00:00:00.000Z');
const clients: TestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await catalyst?.close();
  catalyst = undefined;
  await dir?.remove();
  dir = undefined;
});

async function start(env: Record<string, string> = {}): Promise<RunningCatalyst> {
  dir ??= await createTempDir('browser-logins');
  const config = loadConfig({
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: dir.path,
    CATALYST_IDEAS_ROOT: `${dir.path}/ideas`,
    CATALYST_LOG_LEVEL: 'silent',
    ...env,
  });
  catalyst = await startCatalyst({ config, logger: pino({ level: 'silent' }), now: () => clock });
  return catalyst;
}

interface Browser {
  readonly cookie: string;
  readonly key: string;
  readonly userAgent: string;
}

async function logIn(running: RunningCatalyst, userAgent = CHROME_LINUX): Promise<Browser> {
  const response = await fetch(`${running.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: running.url, 'user-agent': userAgent },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(response.status).toBe(200);
  const { key } = z.object({ key: z.string() }).parse(await response.json());
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  return { cookie, key, userAgent };
}

function call(running: RunningCatalyst, browser: Browser, path: string, method = 'GET'): Promise<Response> {
  return fetch(`${running.url}${path}`, {
    method,
    headers: {
      cookie: browser.cookie,
      'x-catalyst-key': browser.key,
      origin: running.url,
      'user-agent': browser.userAgent,
    },
  });
}

async function sessionsSeenBy(running: RunningCatalyst, browser: Browser): Promise<BrowserSessionView[]> {
  const response = await call(running, browser, '/api/sessions');
  expect(response.status).toBe(200);
  return BrowserSessionListResponseSchema.parse(await response.json()).sessions;
}

function wsUrl(running: RunningCatalyst): string {
  return `${running.url.replace(/^http/, 'ws')}/ws`;
}

function socketOptions(running: RunningCatalyst, browser: Browser) {
  return {
    headers: { cookie: browser.cookie },
    origin: running.url,
    protocols: [`catalyst-key.${browser.key}`],
  };
}

describe('signed-in browsers', () => {
  it('lists every browser with a name from its user agent, the current one marked', async () => {
    const running = await start();
    const laptop = await logIn(running, CHROME_LINUX);
    clock += 60_000;
    const phone = await logIn(running, FIREFOX_ANDROID);
    const seen = await sessionsSeenBy(running, laptop);
    expect(seen.map(({ name, current }) => ({ name, current }))).toEqual([
      { name: 'Firefox on Android', current: false },
      { name: 'Chrome on Linux', current: true },
    ]);
    const mine = seen.find((session) => session.current);
    expect(mine?.createdAt).toBe('2030-01-01T00:00:00.000Z');
    expect(mine?.expiresAt).toBe('2030-01-31T00:00:00.000Z');
    expect((await sessionsSeenBy(running, phone)).find((session) => session.current)?.name).toBe(
      'Firefox on Android',
    );
    // An API client with the token sees the list too, with no current one.
    const listed = await fetch(`${running.url}/api/sessions`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const sessions = BrowserSessionListResponseSchema.parse(await listed.json()).sessions;
    expect(sessions.map((session) => session.current)).toEqual([false, false]);
  });

  it('signs another browser out: its API calls get 401, its open WebSocket is closed and a new one refused', async () => {
    const running = await start();
    const laptop = await logIn(running, CHROME_LINUX);
    const phone = await logIn(running, FIREFOX_ANDROID);
    const phoneSocket = await openClient(wsUrl(running), socketOptions(running, phone));
    clients.push(phoneSocket);
    const laptopSocket = await openClient(wsUrl(running), socketOptions(running, laptop));
    clients.push(laptopSocket);
    const phoneId = (await sessionsSeenBy(running, laptop)).find((session) => !session.current)?.id ?? '';

    for (const bad of ['nope', '..%2Fsessions', 'session-0000000000000000']) {
      const refused = await call(running, laptop, `/api/sessions/${bad}`, 'DELETE');
      expect(refused.status, bad).toBe(bad.startsWith('session-') ? 404 : 400);
    }
    expect(await sessionsSeenBy(running, laptop)).toHaveLength(2);

    expect((await call(running, laptop, `/api/sessions/${phoneId}`, 'DELETE')).status).toBe(204);
    expect((await phoneSocket.closed).code).toBe(4401);
    expect((await call(running, phone, '/api/ideas')).status).toBe(401);
    expect((await refusedUpgrade(wsUrl(running), socketOptions(running, phone))).status).toBe(401);
    expect((await call(running, laptop, `/api/sessions/${phoneId}`, 'DELETE')).status).toBe(404);

    expect((await call(running, laptop, '/api/ideas')).status).toBe(200);
    expect(laptopSocket.socket.readyState).toBe(laptopSocket.socket.OPEN);
    expect((await sessionsSeenBy(running, laptop)).map((session) => session.name)).toEqual([
      'Chrome on Linux',
    ]);
  });

  it('logs out: the cookie is cleared and the session refused from then on, on the API and the WebSocket', async () => {
    const running = await start();
    const laptop = await logIn(running);
    const other = await logIn(running, FIREFOX_ANDROID);
    const socket = await openClient(wsUrl(running), socketOptions(running, laptop));
    clients.push(socket);
    const loggedOut = await call(running, laptop, '/api/logout', 'POST');
    expect(loggedOut.status).toBe(204);
    expect(loggedOut.headers.getSetCookie()).toEqual([
      'catalyst_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0',
    ]);
    expect((await socket.closed).code).toBe(4401);
    expect((await call(running, laptop, '/api/ideas')).status).toBe(401);
    expect((await call(running, laptop, '/api/logout', 'POST')).status).toBe(401);
    expect((await refusedUpgrade(wsUrl(running), socketOptions(running, laptop))).status).toBe(401);
    expect((await sessionsSeenBy(running, other)).map((session) => session.current)).toEqual([true]);

    // An API client has no session to end: its token stays valid until it changes.
    const bearer = await fetch(`${running.url}/api/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(400);
  });

  it('ends a session CATALYST_SESSION_DAYS after its login, however often it is used', async () => {
    const running = await start({ CATALYST_SESSION_DAYS: '2' });
    const start0 = clock;
    const laptop = await logIn(running);
    const fresh = await logIn(running, FIREFOX_ANDROID);
    clock = start0 + DAY_MS;
    const phoneLater = await logIn(running, FIREFOX_ANDROID);
    const seen = await sessionsSeenBy(running, laptop);
    expect(seen.find((session) => session.current)).toMatchObject({
      lastSeenAt: new Date(start0 + DAY_MS).toISOString(),
      expiresAt: new Date(start0 + 2 * DAY_MS).toISOString(),
    });

    const socket = await openClient(wsUrl(running), socketOptions(running, laptop));
    clients.push(socket);
    clock = start0 + 2 * DAY_MS;
    expect((await call(running, laptop, '/api/ideas')).status).toBe(401);
    expect((await socket.closed).code).toBe(4401);
    expect((await refusedUpgrade(wsUrl(running), socketOptions(running, fresh))).status).toBe(401);
    expect((await sessionsSeenBy(running, phoneLater)).map((session) => session.current)).toEqual([true]);
  });

  it('keeps sessions across a restart in a 0600 file that holds neither cookie nor key; a revoked one stays out', async () => {
    let running = await start();
    const laptop = await logIn(running);
    const phone = await logIn(running, FIREFOX_ANDROID);
    const phoneId = (await sessionsSeenBy(running, laptop)).find((session) => !session.current)?.id ?? '';
    expect((await call(running, laptop, `/api/sessions/${phoneId}`, 'DELETE')).status).toBe(204);
    await running.close();

    const file = join(dir?.path ?? '', 'sessions.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    for (const secret of [laptop.cookie.split('=')[1] ?? '', laptop.key, phone.key, TOKEN]) {
      expect(text).not.toContain(secret);
    }

    running = await start();
    expect((await call(running, laptop, '/api/ideas')).status).toBe(200);
    expect((await call(running, phone, '/api/ideas')).status).toBe(401);
    expect((await sessionsSeenBy(running, laptop)).map(({ name, current }) => ({ name, current }))).toEqual([
      { name: 'Chrome on Linux', current: true },
    ]);
  });

  it('ends every session when the token changes', async () => {
    let running = await start();
    const laptop = await logIn(running);
    await running.close();
    running = await start({ CATALYST_TOKEN: `${TOKEN}-changed` });
    expect((await call(running, laptop, '/api/ideas')).status).toBe(401);
    const listed = await fetch(`${running.url}/api/sessions`, {
      headers: { authorization: `Bearer ${TOKEN}-changed` },
    });
    expect(BrowserSessionListResponseSchema.parse(await listed.json()).sessions).toEqual([]);
  });
});
