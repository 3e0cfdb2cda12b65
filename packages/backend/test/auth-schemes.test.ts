import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, TEST_TOKEN, type ServerHarness } from './server-harness.ts';
import { openClient, refusedUpgrade, type TestClient } from './server-ws-client.ts';

/**
 * Only `Authorization: Bearer` is Catalyst's (issue 25, finding 12). A reverse proxy with HTTP Basic auth makes the
 * browser send `Authorization: Basic …` on every request, the WebSocket upgrade included: such a request is judged
 * by its session cookie and key as if the header were absent, over a real server on 127.0.0.1.
 */

let harness: ServerHarness;
const clients: TestClient[] = [];

beforeEach(async () => {
  harness = await startServer();
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness.close();
});

const BASIC = `Basic ${Buffer.from('person:proxy-password').toString('base64')}`;

async function logIn(): Promise<{ cookie: string; key: string }> {
  const response = await fetch(`${harness.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: harness.baseUrl, authorization: BASIC },
    body: JSON.stringify({ token: TEST_TOKEN }),
  });
  expect(response.status).toBe(200);
  const { key } = z.object({ key: z.string() }).parse(await response.json());
  return { cookie: (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '', key };
}

describe('a browser behind a proxy with HTTP Basic auth', () => {
  it('is let in by its session on the API and the WebSocket, whatever the Basic header holds', async () => {
    const { cookie, key } = await logIn();
    const origin = harness.baseUrl;
    for (const authorization of [BASIC, `Basic ${TEST_TOKEN}`, 'Digest username="person"', 'basic']) {
      const headers = { authorization, cookie, origin, 'x-catalyst-key': key };
      expect((await fetch(`${harness.baseUrl}/api/ideas`, { headers })).status).toBe(200);
      const client = await openClient(harness.wsUrl, {
        headers: { authorization, cookie },
        origin,
        protocols: [`catalyst-key.${key}`],
      });
      clients.push(client);
    }
    expect(harness.hub.clientCount).toBe(4);
  });

  it('is refused without a whole session, as without the header', async () => {
    const { cookie, key } = await logIn();
    const origin = harness.baseUrl;
    for (const headers of [{}, { cookie }, { 'x-catalyst-key': key }]) {
      const response = await fetch(`${harness.baseUrl}/api/ideas`, {
        headers: { ...headers, authorization: BASIC, origin },
      });
      expect(response.status).toBe(401);
    }
    const upgrade = await refusedUpgrade(harness.wsUrl, {
      headers: { authorization: BASIC, cookie },
      origin,
    });
    expect(upgrade.status).toBe(401);
    expect(harness.service.calls).toEqual([]);
  });

  it('still judges a Bearer header alone: a wrong bearer token is refused even beside a valid session', async () => {
    const { cookie, key } = await logIn();
    const origin = harness.baseUrl;
    const headers = { authorization: 'Bearer wrong-token', cookie, origin, 'x-catalyst-key': key };
    expect((await fetch(`${harness.baseUrl}/api/ideas`, { headers })).status).toBe(401);
    const upgrade = await refusedUpgrade(harness.wsUrl, {
      headers: { authorization: 'Bearer wrong-token', cookie },
      origin,
      protocols: [`catalyst-key.${key}`],
    });
    expect(upgrade.status).toBe(401);
  });
});
