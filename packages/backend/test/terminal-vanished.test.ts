import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import { waitUntil } from '@catalyst/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuth } from '../src/auth/auth.ts';
import { createWsHub, type WsHub } from '../src/server/ws-hub.ts';
import { useServiceFixture } from './service-harness.ts';
import { openTerminalClient, type TerminalClient } from './terminal-client.ts';

// Security review (issue 39), item 2, over SSH to the test kit's sshd: a terminal whose client pasted more than the
// shell reads and then vanished (its network dead, or its tab frozen: it reads and answers nothing) is let go within a
// bounded time, so its shell starts the detached countdown instead of holding a terminal slot until a restart. The
// hub here is a second one on the fixture's terminals, with a short heartbeat and input wait.

const fixture = useServiceFixture();
const TOKEN = 'terminal-vanished-test-token-0123456789abcdef';
const HEARTBEAT_MS = 100;
const MAX_INPUT_WAIT_MS = 1_000;
const MIB = 1024 * 1024;

let opened: { server: Server; hub: WsHub } | undefined;
const clients: TerminalClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  if (opened === undefined) return;
  const { server, hub } = opened;
  opened = undefined;
  await hub.close();
  server.closeAllConnections();
  await new Promise((resolve) => {
    server.close(resolve);
  });
});

async function startHub(): Promise<{ url: string; hub: WsHub }> {
  const { services } = fixture.service.catalyst;
  const server = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  const hub = createWsHub({
    server,
    services,
    auth: createAuth({ token: TOKEN, allowedOrigins: [] }),
    logger: pino({ level: 'silent' }),
    terminals: services.terminals,
    heartbeatMs: HEARTBEAT_MS,
    maxInputWaitMs: MAX_INPUT_WAIT_MS,
  });
  opened = { server, hub };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${String(port)}${TERMINAL_WS_PATH}`, hub };
}

async function connect(url: string): Promise<TerminalClient> {
  const client = await openTerminalClient(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  clients.push(client);
  return client;
}

describe('a terminal whose client vanished while its paste waited for the shell', () => {
  it('is let go once the shell has taken none of its input for the bound, and can be attached again', async () => {
    const { terminals } = fixture.service.catalyst.services;
    const { url, hub } = await startHub();
    const idea = await fixture.service.createIdea('Terminal vanished mid-paste');
    const client = await connect(url);
    client.send({ type: 'open', ideaId: idea.id, cols: 80, rows: 24 });
    const ready = await client.waitForFrame('ready');
    // Raw: the pty passes the paste as it is, to a `sleep` that reads none of it.
    const from = client.output().length;
    client.type(`stty raw -echo; echo "ready-$((40+2))"; sleep 600\r`);
    await client.waitForOutput(/ready-42/, from);
    // More than the pty, sshd and the SSH channel hold (several MiB each way, terminal-flow.test.ts).
    const pasted = Buffer.alloc(16 * MIB, 'p');
    for (let at = 0; at < pasted.length; at += 64 * 1024)
      client.socket.send(pasted.subarray(at, at + 64 * 1024));
    await waitUntil(() => (terminals.flowOf(ready.terminalId)?.inputWaits ?? 0) > 0, {
      timeoutMs: 15_000,
      what: 'the server to wait for the way to the pty',
    });

    // The client vanishes: it reads nothing more, so answers no ping, and never closes.
    client.socket.pause();
    const vanishedAt = performance.now();
    await waitUntil(() => hub.clientCount === 0, { timeoutMs: 10_000, what: 'the socket to be let go' });
    // The bound, then a ping unanswered over a beat; a margin for a busy machine.
    expect(performance.now() - vanishedAt).toBeLessThan(MAX_INPUT_WAIT_MS + 3 * HEARTBEAT_MS + 2_000);

    const again = await connect(url);
    again.send({ type: 'attach', ideaId: idea.id, terminalId: ready.terminalId, cols: 80, rows: 24 });
    expect(await again.waitForFrame('ready')).toMatchObject({ isReattached: true });
    again.send({ type: 'close' });
    await again.waitForFrame('ended');
  });
});
