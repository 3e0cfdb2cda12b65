import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createHeartbeat } from './ws-connection.ts';

// The server's heartbeat ends a socket whose client no longer answers its pings, but not one it holds back itself
// (a terminal's socket, paused while the pty takes no more input: the client's pong waits unread behind its input).

const servers: WebSocketServer[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.close(resolve);
        }),
    ),
  );
});

async function connectedPair(
  options: { autoPong?: boolean } = {},
): Promise<{ server: WebSocket; client: WebSocket }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  await new Promise((resolve) => wss.once('listening', resolve));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${String((wss.address() as AddressInfo).port)}`, options);
  await new Promise((resolve) => client.once('open', resolve));
  return { server: await accepted, client };
}

const logger = pino({ level: 'silent' });

describe('createHeartbeat', () => {
  it('ends a paused socket whose pong cannot be read, unless it is held back on purpose', async () => {
    for (const isHeld of [false, true]) {
      const { server, client } = await connectedPair();
      const beat = createHeartbeat(server, logger, () => isHeld);
      server.pause();
      beat();
      await new Promise((resolve) => setTimeout(resolve, 50));
      beat();
      await new Promise((resolve) => setImmediate(resolve));
      // terminate() leaves it closing, then closed.
      expect(server.readyState === WebSocket.OPEN, isHeld ? 'held back' : 'not held back').toBe(isHeld);
      client.terminate();
      server.terminate();
    }
  });

  it('keeps a socket that answers, and pings it each beat', async () => {
    const { server, client } = await connectedPair();
    let pings = 0;
    client.on('ping', () => (pings += 1));
    const beat = createHeartbeat(server, logger);
    for (let index = 0; index < 3; index++) {
      const pong = new Promise((resolve) => server.once('pong', resolve));
      beat();
      await pong;
    }
    beat();
    expect(server.readyState).toBe(WebSocket.OPEN);
    expect(pings).toBeGreaterThanOrEqual(3);
    client.terminate();
  });

  it('takes a frame read for a pong: a client whose pongs wait behind a long paste is not ended', async () => {
    const { server, client } = await connectedPair({ autoPong: false });
    const beat = createHeartbeat(server, logger);
    for (let index = 0; index < 3; index++) {
      beat();
      const read = new Promise((resolve) => {
        server.once('message', resolve);
        server.once('close', resolve);
      });
      client.send('part of a long paste');
      await read;
    }
    beat();
    expect(server.readyState).toBe(WebSocket.OPEN);
    beat();
    expect(server.readyState).not.toBe(WebSocket.OPEN);
    client.terminate();
  });
});
