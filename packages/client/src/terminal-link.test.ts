import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DISPLACED_CLOSE_CODE,
  LinkRefused,
  TerminalLink,
  type LinkSocket,
  type LinkSocketEvents,
  type TerminalLinkEnd,
} from './terminal-link.ts';

// The link's own decisions, over sockets of its port (the web app's and the command's adapters are tested over real
// WebSockets): what it keeps while the shell is away, when it gives up, and how each end is told.

const IDEA = 'idea-0123456789abcdef';
const TERMINAL = `term-${'b'.repeat(32)}`;

interface Connection {
  events: LinkSocketEvents;
  sent: (string | Uint8Array)[];
  socket: LinkSocket;
}

function harness(
  options: { endOnDropAfterInput?: boolean; maxPendingBytes?: number; refuse?: () => Error } = {},
) {
  const connections: Connection[] = [];
  const ends: TerminalLinkEnd[] = [];
  const notes: string[] = [];
  const link = new TerminalLink({
    ideaId: IDEA,
    size: () => ({ cols: 80, rows: 24 }),
    connect: (events) => {
      const refusal = options.refuse?.();
      if (refusal !== undefined) return Promise.reject(refusal);
      const sent: (string | Uint8Array)[] = [];
      const socket: LinkSocket = {
        isOpen: true,
        sendText: (text) => sent.push(text),
        sendBytes: (bytes, onSent) => {
          sent.push(bytes);
          onSent?.();
        },
        bufferedAmount: 0,
        close: () => undefined,
      };
      connections.push({ events, sent, socket });
      return Promise.resolve(socket);
    },
    onOutput: () => undefined,
    onLive: (_id, wasDropped) => notes.push(wasDropped ? 'live again' : 'live'),
    onDropped: (isFirst) => notes.push(isFirst ? 'dropped' : 'dropped again'),
    onEnd: (end) => ends.push(end),
    ...(options.endOnDropAfterInput === undefined
      ? {}
      : { endOnDropAfterInput: options.endOnDropAfterInput }),
    ...(options.maxPendingBytes === undefined ? {} : { maxPendingBytes: options.maxPendingBytes }),
  });
  const ready = (connection: Connection | undefined, isReattached: boolean) => {
    connection?.events.onText(
      JSON.stringify({ type: 'ready', terminalId: TERMINAL, ideaId: IDEA, cwd: '/p', isReattached }),
    );
  };
  /** Starts the link and makes its first socket's shell live; that socket's connection. */
  const live = async (): Promise<Connection | undefined> => {
    link.start();
    await vi.waitFor(() => {
      expect(connections).toHaveLength(1);
    });
    ready(connections[0], false);
    return connections[0];
  };
  return { link, connections, ends, notes, ready, live };
}

const text = (bytes: string | Uint8Array | undefined) =>
  typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes);

afterEach(() => {
  vi.useRealTimers();
});

describe('TerminalLink', () => {
  it('keeps what is written while the shell is away, up to its bound, and sends it on the attach', async () => {
    vi.useFakeTimers();
    const { link, connections, notes, ready } = harness({ maxPendingBytes: 4 });
    link.start();
    await vi.waitFor(() => {
      expect(connections).toHaveLength(1);
    });
    expect(JSON.parse(text(connections[0]?.sent[0]))).toEqual({
      type: 'open',
      ideaId: IDEA,
      cols: 80,
      rows: 24,
    });
    ready(connections[0], false);
    link.holdOutput(true);
    connections[0]?.events.onClose(1006);
    link.write(new TextEncoder().encode('ls\r'));
    link.write(new TextEncoder().encode('pwd\r'));
    await vi.advanceTimersByTimeAsync(250);
    const second = connections[1];
    expect(second?.sent.map(text).map((frame) => JSON.parse(frame) as unknown)).toEqual([
      { type: 'attach', ideaId: IDEA, terminalId: TERMINAL, cols: 80, rows: 24 },
      { type: 'flow', paused: true },
    ]);
    ready(second, true);
    expect(second?.sent.slice(2).map(text)).toEqual(['ls\r']);
    expect(notes).toEqual(['live', 'dropped', 'live again']);
  });

  it('gives up attaching past its time, and ends at once on a drop after piped input went out', async () => {
    vi.useFakeTimers();
    const patient = harness();
    await patient.live();
    patient.connections[0]?.events.onClose(1006);
    for (let i = 0; i < 20; i += 1) {
      await vi.advanceTimersByTimeAsync(5_000);
      patient.connections.at(-1)?.events.onClose(1006);
    }
    expect(patient.ends).toEqual([{ kind: 'lost', isOpened: true, isInputInFlight: false }]);
    expect(patient.notes).toEqual(['live', 'dropped']);

    const piped = harness({ endOnDropAfterInput: true });
    await piped.live();
    piped.link.write(new TextEncoder().encode('SELECT 1;\n'));
    piped.connections[0]?.events.onClose(1006);
    expect(piped.ends).toEqual([{ kind: 'lost', isOpened: true, isInputInFlight: true }]);
  });

  it('tells each end: the shell exited, another client took it, an attach found it gone, a refused connection', async () => {
    const exited = harness();
    await exited.live();
    exited.connections[0]?.events.onText(
      JSON.stringify({
        type: 'ended',
        terminalId: TERMINAL,
        reason: 'exited',
        exitCode: 2,
        message: 'exit 2',
      }),
    );
    expect(exited.ends).toEqual([{ kind: 'ended', reason: 'exited', exitCode: 2, message: 'exit 2' }]);

    const displaced = harness();
    await displaced.live();
    displaced.connections[0]?.events.onClose(DISPLACED_CLOSE_CODE);
    expect(displaced.ends).toEqual([{ kind: 'displaced' }]);

    const gone = harness();
    await gone.live();
    gone.connections[0]?.events.onText(
      JSON.stringify({ type: 'error', code: 'TERMINAL_NOT_FOUND', message: 'No such terminal.' }),
    );
    expect(gone.ends).toEqual([{ kind: 'gone', message: 'No such terminal.' }]);

    const cause = new Error('token refused');
    const refused = harness({ refuse: () => new LinkRefused('UNAUTHORIZED', 'No entry.', { cause }) });
    refused.link.start();
    await vi.waitFor(() => {
      expect(refused.ends).toHaveLength(1);
    });
    expect(refused.ends).toEqual([{ kind: 'refused', code: 'UNAUTHORIZED', message: 'No entry.', cause }]);
    expect(refused.link.isOver).toBe(true);
  });
});
