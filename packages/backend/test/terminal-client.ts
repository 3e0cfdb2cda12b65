import type { IncomingMessage } from 'node:http';
import { TERMINAL_WS_PATH, TerminalServerFrameSchema, type TerminalServerFrame } from '@catalyst/protocol';
import { WebSocket, type RawData } from 'ws';
import type { ServiceUnderTest } from './service-harness.ts';

/**
 * A terminal's WebSocket as a test drives it: JSON frames parsed with the protocol's schema, the output kept as
 * text (ANSI and all) so a test waits for what a command printed.
 */
export interface TerminalClient {
  readonly socket: WebSocket;
  readonly frames: TerminalServerFrame[];
  /** Everything printed since the socket opened, replay included. */
  output(): string;
  send(frame: unknown): void;
  type(text: string): void;
  /** Waits until the output (after `from`, a length of output() taken before) matches; 15 s unless `timeoutMs`. */
  waitForOutput(pattern: RegExp, from?: number, timeoutMs?: number): Promise<RegExpMatchArray>;
  waitForFrame<T extends TerminalServerFrame['type']>(
    type: T,
  ): Promise<Extract<TerminalServerFrame, { type: T }>>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

export function openTerminalClient(
  url: string,
  options: { headers?: Record<string, string>; origin?: string } = {},
): Promise<TerminalClient> {
  const socket = new WebSocket(url, {
    headers: options.headers ?? {},
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  const frames: TerminalServerFrame[] = [];
  const decoder = new TextDecoder();
  let printed = '';
  const checks = new Set<() => void>();
  socket.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (isBinary) printed += decoder.decode(bytes, { stream: true });
    else frames.push(TerminalServerFrameSchema.parse(JSON.parse(bytes.toString('utf8'))));
    for (const check of checks) check();
  });
  /** Resolves with `find()`'s first defined answer, checked at each frame; fails after 15 s saying what it saw. */
  const waitFor = <T>(find: () => T | undefined, what: () => string, timeoutMs = 15_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        checks.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`timed out waiting for ${what()}`));
      }, timeoutMs);
      checks.add(check);
      check();
    });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
    });
  });
  const client: TerminalClient = {
    socket,
    frames,
    output: () => printed,
    send: (frame) => {
      socket.send(JSON.stringify(frame));
    },
    type: (text) => {
      socket.send(Buffer.from(text, 'utf8'), { binary: true });
    },
    waitForOutput: (pattern, from = 0, timeoutMs) =>
      waitFor(
        () => printed.slice(from).match(pattern) ?? undefined,
        () => `terminal output ${String(pattern)} (so far: ${JSON.stringify(printed.slice(-300))})`,
        timeoutMs,
      ),
    waitForFrame: <T extends TerminalServerFrame['type']>(type: T) =>
      waitFor(
        () => frames.find((frame): frame is Extract<TerminalServerFrame, { type: T }> => frame.type === type),
        () => `a ${type} frame (so far: ${JSON.stringify(frames)})`,
      ),
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

export function terminalUrl(service: ServiceUnderTest): string {
  return `${service.catalyst.url.replace('http', 'ws')}${TERMINAL_WS_PATH}`;
}

/** A terminal socket of a signed-in client (the Bearer token), not linked to a terminal yet. */
export function connectTerminal(service: ServiceUnderTest): Promise<TerminalClient> {
  return openTerminalClient(terminalUrl(service), {
    headers: { authorization: `Bearer ${service.catalyst.token}` },
  });
}

export async function openTerminal(service: ServiceUnderTest, ideaId: string, size = { cols: 80, rows: 24 }) {
  const client = await connectTerminal(service);
  client.send({ type: 'open', ideaId, ...size });
  const ready = await client.waitForFrame('ready');
  return { client, ready };
}

/** Runs a command and waits for its own line of output, told apart from the echo by a computed marker. */
export async function runInTerminal(
  client: TerminalClient,
  command: string,
  marker: string,
): Promise<string> {
  const from = client.output().length;
  client.type(`${command}; echo "${marker}-$((40+2))"\r`);
  const match = await client.waitForOutput(new RegExp(`([^]*)${marker}-42`), from);
  return match[1] ?? '';
}
