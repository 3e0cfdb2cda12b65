import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { loadConfig } from '../src/server/config.ts';

/**
 * CATALYST_PUBLIC_URL, through the whole composition (config → app → HTTP): behind an HTTPS proxy the request
 * Catalyst sees is plain http, so only the setting can make the session cookie Secure.
 */

const TOKEN = 'public-url-test-token-0123456789abcdefghijkl';
const PUBLIC_URL = 'https://catalyst.example.com';

let dir: TempDir | undefined;
let catalyst: RunningCatalyst | undefined;

afterEach(async () => {
  await catalyst?.close();
  catalyst = undefined;
  await dir?.remove();
});

async function start(env: Record<string, string>): Promise<RunningCatalyst> {
  dir = await createTempDir('public-url');
  const config = loadConfig({
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: dir.path,
    CATALYST_IDEAS_ROOT: `${dir.path}/ideas`,
    CATALYST_LOG_LEVEL: 'silent',
    ...env,
  });
  catalyst = await startCatalyst({ config, logger: pino({ level: 'silent' }) });
  return catalyst;
}

/** A login as the proxy forwards it: the browser's Origin, plain http to Catalyst on loopback. */
function logInThroughProxy(running: RunningCatalyst, origin: string): Promise<Response> {
  return fetch(`${running.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, 'x-forwarded-proto': 'https' },
    body: JSON.stringify({ token: TOKEN }),
  });
}

describe('CATALYST_PUBLIC_URL', () => {
  it('makes the session cookie Secure when it is https, and lets its origin log in', async () => {
    const running = await start({ CATALYST_PUBLIC_URL: PUBLIC_URL });
    const login = await logInThroughProxy(running, PUBLIC_URL);
    expect(login.status).toBe(200);
    const [setCookie] = login.headers.getSetCookie();
    expect(setCookie).toMatch(/^catalyst_session=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Secure$/);
  });

  it('without it: no Secure cookie over plain http, and the proxy’s origin is foreign', async () => {
    const running = await start({});
    expect((await logInThroughProxy(running, PUBLIC_URL)).status).toBe(403);
    const login = await logInThroughProxy(running, running.url);
    expect(login.status).toBe(200);
    expect(login.headers.getSetCookie()[0]).not.toContain('Secure');
  });
});
