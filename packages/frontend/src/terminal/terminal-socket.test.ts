import { TerminalClientFrameSchema, type TerminalClientFrame } from '@catalyst/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { until } from '../../test/support/test-ws-server.ts';
import { TerminalSocket, type TerminalState } from './terminal-socket.ts';

// The page's terminal socket against a real ws server: it opens a shell, attaches to the same one by id after a
// drop (keys typed meanwhile sent once it is back), holds the output while the page draws behind, and stops
// reconnecting once the shell has ended.

const IDEA = 'idea-0123456789abcdef';
const TERMINAL = `term-${'a'.repeat(32)}`;

interface Seen {
  frames: TerminalClientFrame[];
  bytes: string[];
}

describe('TerminalSocket', () => {
  let wss: WebSocketServer;
  let url: string;
  const sockets: ServerSocket[] = [];
  const seen: Seen = { frames: [], bytes: [] };
  let terminal: TerminalSocket | undefined;

  beforeEach(async () => {
    seen.frames.length = 0;
    seen.bytes.length = 0;
    sockets.length = 0;
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    const address = wss.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected address');
    url = `ws://127.0.0.1:${String(address.port)}/ws/terminal`;
    wss.on('connection', (socket) => {
      sockets.push(socket);
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) seen.bytes.push(data.toString('utf8'));
        else seen.frames.push(TerminalClientFrameSchema.parse(JSON.parse(data.toString('utf8'))));
      });
    });
  });
  afterEach(async () => {
    terminal?.dispose();
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => {
      wss.close(resolve);
    });
  });

  function start(states: TerminalState[], output: { text: string; isReplay: boolean }[]) {
    terminal = new TerminalSocket({
      ideaId: IDEA,
      url,
      size: () => ({ cols: 100, rows: 30 }),
      onOutput: (bytes, isReplay) => output.push({ text: new TextDecoder().decode(bytes), isReplay }),
      onState: (state) => states.push(state),
    });
    return terminal;
  }

  const ready = (socket: ServerSocket | undefined, isReattached: boolean) => {
    const frame = { type: 'ready', terminalId: TERMINAL, ideaId: IDEA, cwd: '/p', isReattached };
    socket?.send(JSON.stringify(frame));
  };

  it('opens, then after a drop attaches to the same shell and sends what was typed meanwhile', async () => {
    const states: TerminalState[] = [];
    const output: { text: string; isReplay: boolean }[] = [];
    const socket = start(states, output);
    await until(() => seen.frames.length === 1);
    expect(seen.frames[0]).toEqual({ type: 'open', ideaId: IDEA, cols: 100, rows: 30 });
    ready(sockets[0], false);
    await until(() => states.at(-1)?.kind === 'live');
    socket.write('ls\r');
    await until(() => seen.bytes.length === 1);
    expect(seen.bytes).toEqual(['ls\r']);

    sockets[0]?.terminate();
    await until(() => states.at(-1)?.kind === 'reconnecting');
    socket.write('pwd\r');
    await until(() => seen.frames.length === 2);
    expect(seen.frames[1]).toEqual({
      type: 'attach',
      ideaId: IDEA,
      terminalId: TERMINAL,
      cols: 100,
      rows: 30,
    });
    expect(seen.bytes).toEqual(['ls\r']);
    ready(sockets[1], true);
    sockets[1]?.send(Buffer.from('$ ls\r\n'), { binary: true });
    await until(() => seen.bytes.length === 2 && output.length === 1);
    expect(seen.bytes[1]).toBe('pwd\r');
    expect(output).toEqual([{ text: '$ ls\r\n', isReplay: true }]);
  });

  it('asks the server to hold the output while the page draws behind, again on the socket of a re-attach', async () => {
    const states: TerminalState[] = [];
    const socket = start(states, []);
    await until(() => sockets.length === 1);
    ready(sockets[0], false);
    await until(() => states.at(-1)?.kind === 'live');
    socket.holdOutput(true);
    socket.holdOutput(true);
    await until(() => seen.frames.length === 2);
    expect(seen.frames[1]).toEqual({ type: 'flow', paused: true });

    // A new socket starts unheld on the server: the page, still behind, says so right after its attach.
    sockets[0]?.terminate();
    await until(() => seen.frames.length === 4);
    expect(seen.frames[2]).toMatchObject({ type: 'attach' });
    expect(seen.frames[3]).toEqual({ type: 'flow', paused: true });
    ready(sockets[1], true);
    socket.holdOutput(false);
    await until(() => seen.frames.length === 5);
    expect(seen.frames[4]).toEqual({ type: 'flow', paused: false });
  });

  it('says the shell ended, and does not go on to reconnect', async () => {
    const states: TerminalState[] = [];
    start(states, []);
    await until(() => sockets.length === 1);
    ready(sockets[0], false);
    const ended = {
      type: 'ended',
      terminalId: TERMINAL,
      reason: 'exited',
      exitCode: 0,
      message: 'The shell exited.',
    };
    const closed = new Promise<void>((resolve) => {
      sockets[0]?.once('close', () => {
        resolve();
      });
    });
    sockets[0]?.send(JSON.stringify(ended));
    await until(() => states.at(-1)?.kind === 'ended');
    expect(states.at(-1)).toEqual({ kind: 'ended', message: 'The shell exited.' });
    await closed;
    expect(states.map((state) => state.kind)).toEqual(['live', 'ended']);
    expect(sockets).toHaveLength(1);
  });
});
