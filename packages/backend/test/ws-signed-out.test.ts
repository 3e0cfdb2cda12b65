import { waitUntil } from '@catalyst/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { callAs, logInBrowser, sessionIdOf, socketOptionsOf, type SignedInBrowser } from './browser-login.ts';
import { closedWithin, openDeafClient, type DeafClient } from './deaf-ws-client.ts';
import { bearer, startServer, TEST_TOKEN, type ServerHarness } from './server-harness.ts';

/**
 * Security review (issue 39), item 1: a browser signed out keeps no working WebSocket, even when it never answers
 * the server's close (a lost phone): the frames it sends after the sign-out are not acted on, and its socket is cut
 * within the sign-out's short grace instead of ws's 30 s close timeout.
 */

/** The sign-out's grace (ws-sign-out.ts, one second) and a margin for a busy machine. */
const CUT_WITHIN_MS = 3_000;

let harness: ServerHarness | undefined;
const clients: DeafClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  harness = undefined;
});

async function signedInSocket(): Promise<{
  server: ServerHarness;
  phone: SignedInBrowser;
  client: DeafClient;
}> {
  const server = await startServer();
  harness = server;
  const phone = await logInBrowser(server.baseUrl, TEST_TOKEN);
  const client = await openDeafClient(server.wsUrl, socketOptionsOf(phone));
  clients.push(client);
  return { server, phone, client };
}

/** What a lost phone would send: a build and a permission answer for an idea. */
function sendHarmfulFrames(client: DeafClient, ideaId: string): void {
  client.socket.send(JSON.stringify({ type: 'build', ideaId, message: 'rm -rf everything' }));
  client.socket.send(JSON.stringify({ type: 'permission', ideaId, requestId: 'req-1', decision: 'allow' }));
}

async function expectCutSoon(client: DeafClient, signedOutAt: number): Promise<void> {
  const cut = await closedWithin(client, CUT_WITHIN_MS + 1_000);
  expect(cut, 'the signed-out socket is still open').toBeDefined();
  expect((cut?.at ?? Infinity) - signedOutAt).toBeLessThan(CUT_WITHIN_MS);
}

describe('a signed-out browser’s WebSocket that does not answer the close', () => {
  it('signed out from another client: acts on none of its frames and is cut within the grace', async () => {
    const { server, phone, client } = await signedInSocket();
    const { id } = server.service.seedIdea();
    const sessionId = await sessionIdOf(phone);
    client.goDeaf();
    const signedOutAt = performance.now();
    const ended = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`, {
      method: 'DELETE',
      headers: bearer(),
    });
    expect(ended.status).toBe(204);
    sendHarmfulFrames(client, id);
    await expectCutSoon(client, signedOutAt);
    expect(server.service.calls).toEqual([]);
    await waitUntil(() => server.hub.clientCount === 0, { timeoutMs: 2_000, what: 'the hub to forget it' });
  });

  it('logged out by itself: the same', async () => {
    const { server, phone, client } = await signedInSocket();
    const { id } = server.service.seedIdea();
    client.goDeaf();
    const signedOutAt = performance.now();
    expect((await callAs(phone, '/api/logout', 'POST')).status).toBe(204);
    sendHarmfulFrames(client, id);
    await expectCutSoon(client, signedOutAt);
    expect(server.service.calls).toEqual([]);
    await waitUntil(() => server.hub.clientCount === 0, { timeoutMs: 2_000, what: 'the hub to forget it' });
  });
});
