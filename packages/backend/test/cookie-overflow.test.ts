import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { logInBrowser, type SignedInBrowser } from './browser-login.ts';

/**
 * Issue 39: a preview reached by Catalyst's own name (a LAN name, a proxy) can set cookies the browser then sends
 * to Catalyst too. Catalyst reads its own cookie by name among any others, accepts far more header bytes than
 * Node's 16 KiB, and answers what is still too much with a page that says why and clears the site's cookies,
 * never a bare 431 that would lock the person out.
 */

const TOKEN = 'cookie-overflow-test-token-0123456789abcdefgh';

let dir: TempDir;
let catalyst: RunningCatalyst;
let browser: SignedInBrowser;

beforeAll(async () => {
  dir = await createTempDir('cookie-overflow');
  const config = loadConfig({
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: dir.path,
    CATALYST_IDEAS_ROOT: `${dir.path}/ideas`,
    CATALYST_LOG_LEVEL: 'silent',
  });
  catalyst = await startCatalyst({ config, logger: pino({ level: 'silent' }) });
  browser = await logInBrowser(catalyst.url, TOKEN);
});

afterAll(async () => {
  await catalyst.close();
  await dir.remove();
});

/** `count` cookies of `size` bytes each, as an app sets them: names and values of its own choosing. */
function foreignCookies(count: number, size: number): string[] {
  return Array.from({ length: count }, (_, index) => `app_${String(index)}=${'v'.repeat(size)}`);
}

function sessionsWith(cookies: string[]): Promise<Response> {
  return fetch(`${catalyst.url}/api/sessions`, {
    headers: { cookie: cookies.join('; '), 'x-catalyst-key': browser.key, origin: browser.origin },
  });
}

/** A WebSocket handshake as a browser opens one (fetch cannot send `Upgrade`); its answer's head. */
function upgradeWith(cookies: string[]): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${catalyst.url}/ws`, {
      headers: {
        cookie: cookies.join('; '),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    request.on('response', (answer) => {
      answer.resume();
      resolve(answer);
    });
    request.on('upgrade', () => {
      reject(new Error('the upgrade was accepted'));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('cookies a preview set on Catalyst’s name (issue 39)', () => {
  it('are ignored, malformed ones too: 30 KiB of them beside the session still let the person in', async () => {
    const malformed = ['no-equals-sign', '=nameless', 'catalyst_session=%zz', 'bad=%E0%A4%A', 'quote="open'];
    const cookies = [...malformed, ...foreignCookies(30, 1024), browser.cookie, ...foreignCookies(2, 10)];
    expect(cookies.join('; ').length).toBeGreaterThan(30 * 1024);
    const response = await sessionsWith(cookies);
    expect(response.status).toBe(200);
    const listed = z
      .object({ sessions: z.array(z.object({ current: z.boolean() })) })
      .parse(await response.json());
    expect(listed.sessions.filter((session) => session.current)).toHaveLength(1);
  });

  it('past what Catalyst accepts, get a page that explains and deletes the cookies it sees, not a bare 431', async () => {
    const response = await sessionsWith([...foreignCookies(180, 4000), browser.cookie]);
    expect(response.status).toBe(431);
    // Never Clear-Site-Data: a long URL overflows the head too, and any site could then sign the person out.
    expect(response.headers.get('clear-site-data')).toBeNull();
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).toContain('more cookies');
    expect(body).toContain('<button id="clear" type="button">');
    // The page's one script is the one its Content-Security-Policy allows, and it expires cookies.
    const script = /<script>([\s\S]*)<\/script>/.exec(body)?.[1] ?? '';
    expect(script).toContain('Max-Age=0');
    const hash = createHash('sha256').update(script).digest('base64');
    expect(response.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`);
  });

  it('on a WebSocket upgrade too', async () => {
    const answer = await upgradeWith(foreignCookies(180, 4000));
    expect(answer.statusCode).toBe(431);
    expect(answer.headers['clear-site-data']).toBeUndefined();
  });

  it('still leaves Catalyst answering the next request on a new connection', async () => {
    await sessionsWith(foreignCookies(180, 4000));
    expect((await sessionsWith([browser.cookie])).status).toBe(200);
  });
});
