import { ClientFrameSchema, type ClientFrame } from '@catalyst/protocol';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';

/**
 * Test kit for the page's connection: a real `ws` server on 127.0.0.1 that records every frame the page sends
 * (parsed with the protocol's schema, so a frame the real server would refuse fails the test) and hands each new
 * socket to whoever awaits it.
 */

export interface TestWsServer {
  url: string;
  frames: ClientFrame[];
  sockets: ServerSocket[];
  nextSocket(): Promise<ServerSocket>;
  close(): Promise<void>;
}

export async function startTestWsServer(): Promise<TestWsServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const address = wss.address();
  if (address === null || typeof address === 'string') throw new Error('unexpected address');
  const frames: ClientFrame[] = [];
  const sockets: ServerSocket[] = [];
  const waiting: ((socket: ServerSocket) => void)[] = [];
  wss.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data: Buffer) => {
      frames.push(ClientFrameSchema.parse(JSON.parse(data.toString('utf8'))));
    });
    waiting.shift()?.(socket);
  });
  return {
    url: `ws://127.0.0.1:${address.port}/ws`,
    frames,
    sockets,
    nextSocket: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => {
          resolve();
        });
      }),
  };
}

/** Resolves once `check` holds, polling every 5 ms (the test's timeout bounds the wait). */
export function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => {
      if (check()) resolve();
      else setTimeout(poll, 5);
    };
    poll();
  });
}
