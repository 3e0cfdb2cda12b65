import type { Readable, Writable } from 'node:stream';
import { CatalystError } from '../core/catalyst-error.ts';
import { renderRunTagLine } from '../core/run-wrapper.ts';
import { findTerminalMarker } from '../core/terminal-shell.ts';
import type { HostTerminal, TerminalEnd } from './host.ts';

/**
 * What both adapters share once the terminal script (terminals/core/terminal-shell.ts) runs on a pty: wait for its marker,
 * hand it the run tag, then pass bytes both ways. Closing drops the transport, then kills by the tag whatever is
 * left.
 */

export interface PtyTransport {
  readonly input: Writable;
  readonly output: Readable;
  readonly ended: Promise<TerminalEnd>;
  /** Drops the channel or the local process's pipes. */
  destroy(): void;
}

export interface TerminalStartOptions {
  runTag: string;
  killRun: (runTag: string) => Promise<void>;
  /** Changes the pty's window, knowing its tty's name (the local host resizes it from outside). */
  resize: (tty: string, cols: number, rows: number) => void;
  /** How long the script may take to say it is ready (a slow login over SSH). */
  readyTimeoutMs: number;
  label: string;
}

export async function startTerminal(
  transport: PtyTransport,
  options: TerminalStartOptions,
): Promise<HostTerminal> {
  // A write after the shell is gone must not become an EPIPE crash; `ended` tells the end.
  transport.input.on('error', () => undefined);
  const chunks = transport.output[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const { tty, rest } = await readMarker(chunks, transport, options);
  transport.input.write(renderRunTagLine(options.runTag));
  let isClosed = false;
  let closing: Promise<void> | undefined;
  // The transport goes first: the pty's hangup ends an interactive shell (which ignores the kill script's TERM)
  // and its jobs at once; the kill by tag then stops what was shielded from the hangup (nohup, setsid).
  const close = async (): Promise<void> => {
    isClosed = true;
    transport.destroy();
    await options.killRun(options.runTag);
  };
  void transport.ended.then(() => (isClosed = true));
  return {
    output: continueWith(rest, chunks),
    write: (data) => isClosed || transport.input.write(data),
    drained: () => drainedOrEnded(transport, () => isClosed),
    resize: (cols, rows) => {
      if (!isClosed) options.resize(tty, cols, rows);
    },
    close: () => (closing ??= close()),
    ended: transport.ended,
  };
}

function drainedOrEnded(transport: PtyTransport, isClosed: () => boolean): Promise<void> {
  const { input } = transport;
  if (isClosed() || !input.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      input.off('drain', done);
      input.off('close', done);
      resolve();
    };
    input.on('drain', done);
    input.on('close', done);
    void transport.ended.then(done);
  });
}

async function readMarker(
  chunks: AsyncIterator<Buffer>,
  transport: PtyTransport,
  options: TerminalStartOptions,
): Promise<{ tty: string; rest: Buffer }> {
  let printed = Buffer.alloc(0);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timeout');
    }, options.readyTimeoutMs);
  });
  const fail = (why: string): never => {
    transport.destroy();
    throw new CatalystError('RUN_START_FAILED', `${options.label}: the terminal did not start (${why})`, {
      details: { host: options.label, printed: printed.toString('utf8').slice(-500) },
    });
  };
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), timedOut]);
      if (next === 'timeout') return fail('no answer in time');
      if (next.done === true) return fail('its shell ended at once');
      printed = Buffer.concat([printed, next.value]);
      const search = findTerminalMarker(printed);
      if (search.found) return { tty: search.tty, rest: search.rest };
      if (search.isTooLong) return fail('its login printed too much');
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The output after the marker. A stream destroyed by close() (the local pipes) fails its reader with a premature
 * close: that is the output's end here, never an error; `ended` says how the shell ended.
 */
async function* continueWith(first: Buffer, chunks: AsyncIterator<Buffer>): AsyncIterable<Uint8Array> {
  if (first.length > 0) yield first;
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch {
      return;
    }
    if (next.done === true) return;
    yield next.value;
  }
}
