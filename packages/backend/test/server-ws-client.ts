import type { IncomingMessage } from 'node:http';
import { ServerFrameSchema, type ServerFrame } from '@catalyst/protocol';
import { WebSocket, type ClientOptions, type RawData } from 'ws';

/**
 * A real `ws` client for the edge tests. Every frame the server sends is parsed with ServerFrameSchema: a frame
 * outside the wire contract fails the test that reads it.
 */

export interface TestClient {
  readonly socket: WebSocket;
  send(frame: unknown): void;
  /** The next frame, in arrival order. */
  next(): Promise<ServerFrame>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

export interface ClientHeaders {
  headers?: Record<string, string>;
  origin?: string;
  autoPong?: boolean;
  /** Subprotocols to offer (a browser's session key rides in one). */
  protocols?: string[];
}

function clientOptions(options: ClientHeaders): ClientOptions {
  return {
    headers: options.headers ?? {},
    ...(options.origin === undefined ? {} : { origin: options.origin }),
    ...(options.autoPong === undefined ? {} : { autoPong: options.autoPong }),
  };
}

export function openClient(url: string, options: ClientHeaders = {}): Promise<TestClient> {
  const socket = new WebSocket(url, options.protocols ?? [], clientOptions(options));
  const client = wrap(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      resolve(client);
    });
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      reject(new Error(`upgrade refused with ${response.statusCode}`));
    });
    socket.once('error', reject);
  });
}

/** For upgrades that must be refused: the HTTP status and body the server answered instead of switching. */
export function refusedUpgrade(
  url: string,
  options: ClientHeaders = {},
): Promise<{ status: number; body: string }> {
  const socket = new WebSocket(url, options.protocols ?? [], clientOptions(options));
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    // ws reports the aborted handshake as an error once the refusal has been read; that is expected here.
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (request, response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
  });
}

function wrap(socket: WebSocket): TestClient {
  const frames: ServerFrame[] = [];
  const waiters: { resolve: (frame: ServerFrame) => void; reject: (error: Error) => void }[] = [];
  let failure: Error | undefined;
  socket.on('message', (data: RawData) => {
    const parsed = parseFrame(data);
    if (parsed instanceof Error) failure ??= parsed;
    const waiter = waiters.shift();
    if (failure !== undefined) waiter?.reject(failure);
    else if (!(parsed instanceof Error) && waiter !== undefined) waiter.resolve(parsed);
    else if (!(parsed instanceof Error)) frames.push(parsed);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code: number, reason: Buffer) => {
      resolve({ code, reason: reason.toString('utf8') });
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`closed with ${code}`));
    });
  });
  return {
    socket,
    closed,
    send(frame) {
      socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    },
    next() {
      if (failure !== undefined) return Promise.reject(failure);
      const frame = frames.shift();
      if (frame !== undefined) return Promise.resolve(frame);
      if (socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error('the socket is not open'));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}

function parseFrame(data: RawData): ServerFrame | Error {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  const text = bytes.toString('utf8');
  try {
    const parsed = ServerFrameSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : new Error(`a frame outside the contract: ${parsed.error.message}`);
  } catch {
    return new Error(`a frame that is not JSON: ${text.slice(0, 200)}`);
  }
}

/** Narrows a frame to an expected type, failing with what arrived instead. */
export function expectFrame<T extends ServerFrame['type']>(
  frame: ServerFrame,
  type: T,
): Extract<ServerFrame, { type: T }> {
  if (!isFrameOf(frame, type)) throw new Error(`expected a ${type} frame, got ${JSON.stringify(frame)}`);
  return frame;
}

function isFrameOf<T extends ServerFrame['type']>(
  frame: ServerFrame,
  type: T,
): frame is Extract<ServerFrame, { type: T }> {
  return frame.type === type;
}
