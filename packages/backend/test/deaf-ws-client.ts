import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket, type RawData } from 'ws';

/**
 * A real `ws` client that can stop hearing its server (security review, issue 39): once deaf, what the server sends
 * is read off the TCP socket and dropped, so its close frame is never answered (a lost phone, a client that ignores
 * the close), while the client can still send, and the end of the TCP connection is still seen (`closed`).
 */
export interface DeafClient {
  readonly socket: WebSocket;
  /** The text frames heard before going deaf, parsed as JSON. */
  readonly frames: unknown[];
  /** The first text frame heard, parsed as JSON. */
  readonly firstFrame: Promise<unknown>;
  goDeaf(): void;
  /** Settles once the connection is gone, with ws's close code (1006 when the server cut it without a close). */
  readonly closed: Promise<{ code: number; at: number }>;
}

export interface DeafClientOptions {
  headers?: Record<string, string>;
  origin?: string;
  protocols?: string[];
}

export function openDeafClient(url: string, options: DeafClientOptions = {}): Promise<DeafClient> {
  const socket = new WebSocket(url, options.protocols ?? [], {
    headers: options.headers ?? {},
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  const frames: unknown[] = [];
  let raw: Socket | undefined;
  // The upgrade's response carries the TCP socket ws then reads from: the only public way to reach it.
  socket.once('upgrade', (response: IncomingMessage) => {
    raw = response.socket;
  });
  const firstFrame = new Promise<unknown>((resolve) => {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return;
      frames.push(JSON.parse(toText(data)));
      resolve(frames[0]);
    });
  });
  const closed = new Promise<{ code: number; at: number }>((resolve) => {
    socket.once('close', (code: number) => {
      resolve({ code, at: performance.now() });
    });
  });
  const client: DeafClient = {
    socket,
    frames,
    firstFrame,
    goDeaf: () => {
      if (raw === undefined) throw new Error('the client has no socket yet');
      // ws's reader goes; the socket keeps flowing into nothing, so its end (and ws's 'close') is still seen.
      raw.removeAllListeners('data');
      raw.on('data', () => undefined);
    },
    closed,
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      resolve(client);
    });
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      reject(new Error(`upgrade refused with ${String(response.statusCode)}`));
    });
    socket.once('error', reject);
  });
}

function toText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The client's close if it comes within `ms`, else undefined. */
export async function closedWithin(
  client: DeafClient,
  ms: number,
): Promise<{ code: number; at: number } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([client.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}
