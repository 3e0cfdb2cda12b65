import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { TERMINAL_WS_PATH, TerminalClientFrameSchema, type TerminalServerFrame } from '@catalyst/protocol';
import { waitUntil } from '@catalyst/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { HIGH_WATER_BYTES } from '../src/input-pump.ts';
import { startCli, useCliFiles } from './cli-process.ts';

// `catalyst shell x < big.sql`: the command reads its piped input no faster than its WebSocket sends it, and sends
// it whole and in order. The far end is a terminal socket on loopback that speaks /ws/terminal's frames
// (docs/protocol.md) and can stop reading, as a slow network or a busy Catalyst does: what the command controls is
// tested here, apart from the host's pty (whose side is the backend's, backend/test/terminal.test.ts).

const IDEA_ID = 'idea-0123456789abcdef';
const TERMINAL_ID = `term-${'a'.repeat(32)}`;
const INPUT_BYTES = 64 * 1024 * 1024;

const files = useCliFiles('catalyst-shell-input', () => randomBytes(24).toString('hex'));
let inputFile: string;
let inputDigest: string;
let readAheadLimit: number;

beforeAll(async () => {
  inputFile = join(files.dir, 'big.sql');
  const input = randomBytes(INPUT_BYTES);
  // No Ctrl-D inside: the command's own at the input's end is the last byte the far end gets.
  for (let at = 0; at < input.length; at += 1) if (input[at] === 4) input[at] = 5;
  await writeFile(inputFile, input);
  inputDigest = sha256(input);
  readAheadLimit = await readReadAheadLimit();
  expect(readAheadLimit * 2, 'the input is well past what may be read ahead').toBeLessThan(INPUT_BYTES);
});

describe('catalyst shell with piped input', () => {
  it('reads no further ahead than the socket sends, and sends the input whole and in order', async () => {
    const far = await startFarEnd();
    try {
      const cli = startCli(['--url', far.url, '--token-file', files.tokenFile, 'shell', IDEA_ID], {
        stdinFile: inputFile,
      });
      const tcp = await far.opened;
      const pid = cli.child.pid;
      if (pid === undefined) throw new Error('the command did not start');
      // The far end reads nothing now; the command's reading stops within the limit.
      tcp.pause();
      const stalled = await readPositionOnceStill(pid);
      expect(stalled).toBeGreaterThan(0);
      expect(stalled).toBeLessThanOrEqual(far.receivedBytes() + readAheadLimit);
      tcp.resume();

      const received = await far.inputEnded;
      const exit = await cli.exited;
      expect(exit.code, exit.stderr).toBe(0);
      expect(received.at(-1), 'the input’s end is typed as Ctrl-D').toBe(4);
      const input = received.subarray(0, received.length - 1);
      expect(input.length).toBe(INPUT_BYTES);
      expect(sha256(input)).toBe(inputDigest);
    } finally {
      await far.close();
    }
  });
});

/** A terminal socket that opens one shell, keeps every input byte, and ends the shell at the input's Ctrl-D. */
async function startFarEnd() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: TERMINAL_WS_PATH });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const chunks: Buffer[] = [];
  let receivedBytes = 0;
  let onOpened: (tcp: Socket) => void = () => undefined;
  let onInputEnded: (input: Buffer) => void = () => undefined;
  const opened = new Promise<Socket>((resolve) => (onOpened = resolve));
  const inputEnded = new Promise<Buffer>((resolve) => (onInputEnded = resolve));
  server.on('connection', (socket: WebSocket, request) => {
    const send = (frame: TerminalServerFrame) => {
      socket.send(JSON.stringify(frame));
    };
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = toBuffer(data);
      if (!isBinary) {
        const frame = TerminalClientFrameSchema.parse(JSON.parse(bytes.toString('utf8')));
        if (frame.type !== 'open') return;
        send({
          type: 'ready',
          terminalId: TERMINAL_ID,
          ideaId: IDEA_ID,
          cwd: '/project',
          isReattached: false,
        });
        onOpened(request.socket);
        return;
      }
      chunks.push(bytes);
      receivedBytes += bytes.length;
      if (bytes.at(-1) !== 4) return;
      onInputEnded(Buffer.concat(chunks));
      send({
        type: 'ended',
        terminalId: TERMINAL_ID,
        reason: 'exited',
        exitCode: 0,
        message: 'The shell exited.',
      });
      socket.close(1000);
    });
  });
  return {
    url: `http://127.0.0.1:${String(address.port)}`,
    opened,
    inputEnded,
    receivedBytes: () => receivedBytes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * How far the process has read its stdin (its file offset, /proc/<pid>/fdinfo/0), once that stops moving: no
 * event says a process stopped reading, so the offset is sampled until it is the same for half a second.
 */
async function readPositionOnceStill(pid: number): Promise<number> {
  let last = -1;
  let stillSince = Date.now();
  let position = 0;
  await waitUntil(
    async () => {
      position = await readPosition(pid);
      if (position !== last) {
        last = position;
        stillSince = Date.now();
      }
      return Date.now() - stillSince >= 500;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  return position;
}

/**
 * How far the command may read ahead of what the far end took while it reads nothing: the command's own bound
 * (input-pump.ts), the kernel's socket buffers between (the send buffer grows at most to tcp_wmem's largest; a
 * receive buffer that is never read stays near its start, tcp_rmem's middle value, counted twice for its overhead)
 * and a megabyte for the file's read-ahead chunks.
 */
async function readReadAheadLimit(): Promise<number> {
  const sizes = async (name: string) =>
    (await readFile(`/proc/sys/net/ipv4/${name}`, 'utf8')).trim().split(/\s+/).map(Number);
  const [, , sendMax = Number.NaN] = await sizes('tcp_wmem');
  const [, receiveStart = Number.NaN] = await sizes('tcp_rmem');
  return HIGH_WATER_BYTES + sendMax + 2 * receiveStart + 1024 * 1024;
}

async function readPosition(pid: number): Promise<number> {
  const handle = await open(`/proc/${String(pid)}/fdinfo/0`, 'r');
  try {
    const text = (await handle.readFile()).toString('utf8');
    return Number(/^pos:\s*(\d+)/m.exec(text)?.[1] ?? Number.NaN);
  } finally {
    await handle.close();
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
