import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  API,
  BrowserSessionListResponseSchema,
  PairingLinkResponseSchema,
  pairingCodeOf,
} from '@catalyst/protocol';
import { createTempDir, freePort, waitUntil, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { PAIRING_REFUSED_MESSAGE } from '../src/auth/routes-login.ts';

/**
 * Pairing a phone (issue 29) through the whole composition over HTTP: a signed-in browser asks for a one-time link,
 * the phone posts its code and gets a browser session like a login's, listed as paired; a code works once and for
 * 10 minutes (on a clock the test moves), every refusal is the same answer, and no code reaches the log. Then
 * Catalyst's own entry (src/main.ts), reachable from elsewhere, prints a pairing QR code that signs a phone in.
 */

const TOKEN = 'pairing-test-token-0123456789abcdefghijklmnopq';
const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';
const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Mobile Safari/537.36';
const MINUTE_MS = 60_000;
const REFUSED = { error: { code: 'PAIRING_CODE_REFUSED', message: PAIRING_REFUSED_MESSAGE } };

let dir: TempDir | undefined;
let catalyst: RunningCatalyst | undefined;
let clock = Date.parse('2030-01-01T00:00:00.000Z');
let logs: string[] = [];

afterEach(async () => {
  await catalyst?.close();
  catalyst = undefined;
  await dir?.remove();
  dir = undefined;
  logs = [];
});

function envOf(path: string): Record<string, string> {
  return {
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: path,
    CATALYST_IDEAS_ROOT: `${path}/ideas`,
  };
}

async function start(): Promise<RunningCatalyst> {
  dir ??= await createTempDir('pairing');
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });
  const config = loadConfig({ ...envOf(dir.path), CATALYST_LOG_LEVEL: 'debug' });
  catalyst = await startCatalyst({ config, logger, now: () => clock });
  return catalyst;
}

interface Browser {
  readonly cookie: string;
  readonly key: string;
}

function loginOf(response: Response, body: unknown): Browser {
  const { key } = z.object({ key: z.string() }).parse(body);
  return { cookie: (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '', key };
}

async function logIn(running: RunningCatalyst): Promise<Browser> {
  const response = await post(running, '/login', { token: TOKEN }, CHROME_LINUX);
  expect(response.status).toBe(200);
  return loginOf(response, await response.json());
}

function post(running: RunningCatalyst, path: string, body: unknown, userAgent = CHROME_ANDROID) {
  return fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: running.url, 'user-agent': userAgent },
    body: JSON.stringify(body),
  });
}

function call(running: RunningCatalyst, browser: Browser, path: string, method = 'GET') {
  return fetch(`${running.url}${path}`, {
    method,
    headers: { cookie: browser.cookie, 'x-catalyst-key': browser.key, origin: running.url },
  });
}

async function pairingLink(running: RunningCatalyst, browser: Browser) {
  const response = await call(running, browser, API.createPairing.path, 'POST');
  expect(response.status).toBe(201);
  const link = PairingLinkResponseSchema.parse(await response.json());
  const code = pairingCodeOf(new URL(link.url).hash) ?? '';
  return { ...link, code };
}

/** The phone's side: the code, posted as the page at /pair posts it. */
function redeem(running: RunningCatalyst, code: string) {
  return post(running, API.redeemPairing.path, { code });
}

describe('pairing a phone', () => {
  it('a code signs one phone in, listed as paired, and is refused from then on', async () => {
    const running = await start();
    const laptop = await logIn(running);
    clock += MINUTE_MS;
    const link = await pairingLink(running, laptop);
    expect(link.url).toBe(`${running.url}/pair#code=${link.code}`);
    expect(link.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(link.expiresAt)).toBe(clock + 10 * MINUTE_MS);

    const paired = await redeem(running, link.code);
    expect(paired.status).toBe(200);
    expect(paired.headers.get('cache-control')).toBe('no-store');
    const phone = loginOf(paired, await paired.json());
    expect(paired.headers.getSetCookie()[0]).toMatch(
      /^catalyst_session=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/$/,
    );
    expect((await call(running, phone, '/api/health')).status).toBe(200);
    const listed = BrowserSessionListResponseSchema.parse(
      await (await call(running, phone, '/api/sessions')).json(),
    ).sessions;
    expect(listed.map(({ name, current, paired: isPaired }) => ({ name, current, isPaired }))).toEqual([
      { name: 'Chrome on Android', current: true, isPaired: true },
      { name: 'Chrome on Linux', current: false, isPaired: false },
    ]);

    const again = await redeem(running, link.code);
    expect(again.status).toBe(401);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(await again.json()).toEqual(REFUSED);
    const unknown = await redeem(running, 'A'.repeat(43));
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual(REFUSED);

    // The phone is a signed-in browser like any: signed out from the laptop, it is refused.
    const phoneId = listed.find((session) => session.current)?.id ?? '';
    expect((await call(running, laptop, `/api/sessions/${phoneId}`, 'DELETE')).status).toBe(204);
    expect((await call(running, phone, '/api/health')).status).toBe(401);
  });

  it('refuses a code from the moment it expires, with the same answer as any other', async () => {
    const running = await start();
    const laptop = await logIn(running);
    const early = await pairingLink(running, laptop);
    const late = await pairingLink(running, laptop);
    clock += 10 * MINUTE_MS - 1;
    expect((await redeem(running, early.code)).status).toBe(200);
    clock += 1;
    const expired = await redeem(running, late.code);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual(REFUSED);
  });

  it('makes links only for the token or a session, and takes codes only from its own pages, in a small body', async () => {
    const running = await start();
    const anonymous = await fetch(`${running.url}${API.createPairing.path}`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const withToken = await fetch(`${running.url}${API.createPairing.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(201);
    const { code } = await pairingLink(running, await logIn(running));

    const foreign = await fetch(`${running.url}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:1' },
      body: JSON.stringify({ code }),
    });
    expect(foreign.status).toBe(403);
    const large = await post(running, '/pair', { code: 'x'.repeat(5000) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    for (const body of [{}, { code: '' }, { code, more: 1 }, [code]]) {
      expect((await post(running, '/pair', body)).status).toBe(400);
    }
    // Refused on the way in, the code is still good.
    expect((await redeem(running, code)).status).toBe(200);
  });

  it('keeps every code out of the log, and the paired mark across a restart', async () => {
    const running = await start();
    const laptop = await logIn(running);
    const used = await pairingLink(running, laptop);
    const unused = await pairingLink(running, laptop);
    await redeem(running, used.code);
    await redeem(running, used.code);
    await redeem(running, 'never-made');
    await running.close();
    catalyst = undefined;

    const log = logs.join('\n');
    expect(log).toContain('"path":"/pair"');
    expect(log).toContain('pairing code refused');
    for (const code of [used.code, unused.code]) expect(log).not.toContain(code);
    expect(log).not.toContain('never-made');

    const restarted = await start();
    const sessions = BrowserSessionListResponseSchema.parse(
      await (await call(restarted, laptop, '/api/sessions')).json(),
    ).sessions;
    expect(sessions.map(({ name, paired }) => `${name}${paired ? ', paired' : ''}`).sort()).toEqual([
      'Chrome on Android, paired',
      'Chrome on Linux',
    ]);
    // Codes live in memory only: a restart ends every one.
    expect((await redeem(restarted, unused.code)).status).toBe(401);
  });
});

describe('./scripts/start reachable from elsewhere', () => {
  // On a terminal (script(1) gives it a pseudo-terminal): a stdout that is none is a log, where no live link goes
  // (issue 39, finding 2; pairing-banner-output.test.ts).
  it(
    'prints a QR code of a pairing link that signs a phone in, on a terminal',
    { timeout: 30_000 },
    async () => {
      dir = await createTempDir('pairing-main');
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${String(port)}`;
      const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
      const command = [process.execPath, '--import', 'tsx', main].map((part) => `'${part}'`).join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: fileURLToPath(new URL('../../..', import.meta.url)),
        detached: true,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          ...envOf(dir.path),
          CATALYST_PORT: String(port),
          CATALYST_PUBLIC_URL: publicUrl,
          CATALYST_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = once(child, 'exit');
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      try {
        // A terminal ends its lines with CRLF.
        const linkPattern = new RegExp(`^  (${publicUrl}/pair#code=\\S+)\\r?$`, 'm');
        await waitUntil(() => linkPattern.test(output), { timeoutMs: 20_000, what: 'the pairing link' });
        expect(output).toContain('To open Catalyst on your phone, scan this code.');
        expect(output.split('\n').filter((line) => /[▄▀█]/.test(line)).length).toBeGreaterThan(15);
        const url = linkPattern.exec(output)?.[1] ?? '';
        const response = await fetch(`${publicUrl}/pair`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: publicUrl },
          body: JSON.stringify({ code: pairingCodeOf(new URL(url).hash) }),
        });
        expect(response.status).toBe(200);
      } finally {
        // The whole group: script(1) and the Catalyst under it.
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
        await exited;
      }
    },
  );
});
