/**
 * The reader's half of the run wrapper protocol (run-wrapper.ts renders the other half). The wrapper prints
 * `@@catalyst-run started tag=<TAG> pid=<PID>` first on stdout and on stderr; everything before it on a stream is
 * the login shell's rc-file noise and is dropped (ssh-field-notes.md §3b, §9). Last, it prints on stderr
 * `\n@@catalyst-run ended reason=<R> code=<N>\n`, which is removed again and tells how the run ended. Both lines
 * may arrive split anywhere across chunks.
 */

import type { RunOutcome } from './run-outcome.ts';
import { isMarkerShape, markerText, parseMarkerLine, VM_MARKERS } from './vm-markers.ts';

export const START_MARKER = markerText(VM_MARKERS.run, 'started');
export const END_MARKER = markerText(VM_MARKERS.run, 'ended');

export const TRAILER_REASONS = [
  'exit',
  'cancel',
  'lease',
  'max_runtime',
  'eof',
  'cwd',
  'not_found',
  'setup',
] as const;
export type TrailerReason = (typeof TRAILER_REASONS)[number];

export interface RunTrailer {
  reason: TrailerReason;
  code: number;
}

export interface StreamStripper {
  /** The bytes of `chunk` that belong to the run (possibly none). The chunk itself is returned when it can be. */
  push(chunk: Uint8Array): Uint8Array;
  /** End of the stream: anything still held back that turned out not to be the trailer. */
  end(): Uint8Array;
  readonly hasStarted: boolean;
  /** The wrapper's pid from the start marker. */
  readonly wrapperPid: number | undefined;
  /** stderr only, once `end()` was called and the last line was a well-formed trailer. */
  readonly trailer: RunTrailer | undefined;
  /** The start of what came before the marker (or of everything, if no marker came), for error messages. */
  preamble(): string;
}

const NEWLINE = 0x0a;
const EMPTY = new Uint8Array(0);
const PREAMBLE_LIMIT = 8 * 1024;
// The pid after `pid=` is a few digits; past this the line cannot be ours.
const MARKER_TAIL_LIMIT = 32;
// A trailer line is about 50 bytes; a longer candidate is the job's own output and is released.
const TRAILER_LIMIT = 128;
const utf8 = new TextDecoder('utf-8', { fatal: false });
const encoder = new TextEncoder();

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

function isTrailerReason(value: string): value is TrailerReason {
  return (TRAILER_REASONS as readonly string[]).includes(value);
}

/** `@@catalyst-run ended reason=… code=…` (with or without its `\n`) → the trailer, or undefined. */
export function parseTrailerLine(line: string): RunTrailer | undefined {
  const marker = parseMarkerLine(line);
  if (!isMarkerShape(marker, VM_MARKERS.run, { words: ['ended'], keys: ['reason', 'code'] }))
    return undefined;
  const reason = marker.fields.get('reason') ?? '';
  const code = marker.fields.get('code') ?? '';
  if (!/^\d{1,3}$/.test(code) || !isTrailerReason(reason)) return undefined;
  return { reason, code: Number(code) };
}

/** Whether `bytes` could still grow into, or already is, the start of a trailer line that begins with `marker`. */
function isTrailerCandidate(bytes: Uint8Array, marker: string): boolean {
  if (bytes.length > TRAILER_LIMIT) return false;
  const text = utf8.decode(bytes);
  const newline = text.indexOf('\n');
  if (newline !== -1 && newline !== text.length - 1) return false;
  return text.startsWith(marker) || marker.startsWith(text);
}

/**
 * Where the held-back tail of stderr starts: the trailer is the stream's last line and is printed after a `\n` of
 * its own, so the candidate is a final `\n` followed by (a prefix of) the trailer line, which begins with `marker`.
 * The run wrapper's reader and the session attach script's (job-stderr.ts) share it.
 */
export function findTrailerStart(data: Uint8Array, marker: string): number {
  const last = data.lastIndexOf(NEWLINE);
  if (last === -1) return data.length;
  if (last === data.length - 1) {
    const previous = last === 0 ? -1 : data.lastIndexOf(NEWLINE, last - 1);
    if (previous !== -1 && isTrailerCandidate(data.subarray(previous + 1), marker)) return previous;
    return last;
  }
  return isTrailerCandidate(data.subarray(last + 1), marker) ? last : data.length;
}

interface MarkerMatch {
  /** Index of the marker's first byte. */
  at: number;
  /** Index of the first byte after the marker line, or undefined while the line is incomplete. */
  next?: number;
  pid?: number;
}

/** Finds the start marker line in `data`. A line that matches the needle but is malformed is skipped. */
function findMarker(data: Uint8Array, needle: Uint8Array): MarkerMatch | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.length);
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) {
    const tailStart = at + needle.length;
    const newline = bytes.indexOf(NEWLINE, tailStart);
    if (newline === -1) {
      if (data.length - tailStart <= MARKER_TAIL_LIMIT) return { at };
      continue;
    }
    const marker = parseMarkerLine(utf8.decode(data.subarray(at, newline)));
    const pid = marker?.fields.get('pid') ?? '';
    const isStart = isMarkerShape(marker, VM_MARKERS.run, { words: ['started'], keys: ['tag', 'pid'] });
    if (isStart && /^\d+$/.test(pid)) return { at, next: newline + 1, pid: Number(pid) };
  }
  return undefined;
}

export interface StreamStripperOptions {
  tag: string;
  stream: 'stdout' | 'stderr';
}

export function createStreamStripper(options: StreamStripperOptions): StreamStripper {
  return new MarkerStripper(options);
}

class MarkerStripper implements StreamStripper {
  readonly #stream: StreamStripperOptions['stream'];
  readonly #needle: Uint8Array;
  /** Bytes held back: a possible marker (before it) or a possible trailer (after it, stderr only). */
  #pending: Uint8Array = EMPTY;
  #preamble: Uint8Array = EMPTY;
  #wrapperPid: number | undefined;
  #trailer: RunTrailer | undefined;

  constructor(options: StreamStripperOptions) {
    this.#stream = options.stream;
    this.#needle = encoder.encode(`${START_MARKER} tag=${options.tag} pid=`);
  }

  get hasStarted(): boolean {
    return this.#wrapperPid !== undefined;
  }

  get wrapperPid(): number | undefined {
    return this.#wrapperPid;
  }

  get trailer(): RunTrailer | undefined {
    return this.#trailer;
  }

  preamble(): string {
    return utf8.decode(this.#preamble);
  }

  push(chunk: Uint8Array): Uint8Array {
    if (this.#wrapperPid !== undefined) return this.#pushAfterMarker(chunk);
    return this.#pushBeforeMarker(concatBytes(this.#pending, chunk));
  }

  end(): Uint8Array {
    const rest = this.#pending;
    this.#pending = EMPTY;
    if (this.#wrapperPid === undefined) {
      this.#keepPreamble(rest);
      return EMPTY;
    }
    // What is held back on stderr is empty or starts with the trailer's own leading `\n`.
    this.#trailer = this.#stream === 'stderr' ? parseTrailerLine(utf8.decode(rest.subarray(1))) : undefined;
    return this.#trailer === undefined ? rest : EMPTY;
  }

  #keepPreamble(bytes: Uint8Array): void {
    if (this.#preamble.length < PREAMBLE_LIMIT) {
      this.#preamble = concatBytes(this.#preamble, bytes.slice(0, PREAMBLE_LIMIT - this.#preamble.length));
    }
  }

  #pushBeforeMarker(data: Uint8Array): Uint8Array {
    const match = findMarker(data, this.#needle);
    if (match === undefined) {
      // Keep just enough to recognise a marker split across chunks.
      const keep = Math.min(data.length, this.#needle.length + MARKER_TAIL_LIMIT);
      this.#keepPreamble(data.subarray(0, data.length - keep));
      this.#pending = data.slice(data.length - keep);
      return EMPTY;
    }
    this.#keepPreamble(data.subarray(0, match.at));
    if (match.next === undefined || match.pid === undefined) {
      this.#pending = data.slice(match.at);
      return EMPTY;
    }
    this.#wrapperPid = match.pid;
    this.#pending = EMPTY;
    return this.#pushAfterMarker(data.subarray(match.next));
  }

  #pushAfterMarker(chunk: Uint8Array): Uint8Array {
    if (this.#stream === 'stdout') return chunk;
    const data = concatBytes(this.#pending, chunk);
    const held = findTrailerStart(data, END_MARKER);
    this.#pending = data.slice(held);
    return data.subarray(0, held);
  }
}

export interface OutcomeContext {
  /** The job's binary, as the run spec gave it. */
  argv0: string;
  cwd: string;
  /** The last of the job's stderr, for the message of a failed start. */
  stderrTail: string;
}

function withTail(message: string, tail: string): string {
  const trimmed = tail.trim();
  return trimmed === '' ? message : `${message}: ${trimmed}`;
}

/** What the wrapper's trailer means for the run (run-wrapper.ts prints it). */
export function outcomeFromTrailer(trailer: RunTrailer, context: OutcomeContext): RunOutcome {
  switch (trailer.reason) {
    case 'exit':
      // sh folds a fatal signal into 128+N; the trailer cannot tell it from a plain exit status.
      return { kind: 'exited', code: trailer.code, signal: null };
    case 'cancel':
      return { kind: 'cancelled' };
    case 'lease':
      return { kind: 'lease_lost' };
    case 'max_runtime':
      return { kind: 'max_runtime' };
    case 'eof':
      return { kind: 'connection_lost', message: "the run's input closed before the run ended" };
    case 'cwd':
      return {
        kind: 'start_failed',
        code: 'CWD_NOT_FOUND',
        message: withTail(`cannot enter the working directory ${context.cwd}`, context.stderrTail),
      };
    case 'not_found':
      return {
        kind: 'start_failed',
        code: 'CLI_NOT_FOUND',
        message: `${context.argv0} was not found (not an executable path, and not on the run's PATH)`,
      };
    case 'setup':
      return {
        kind: 'start_failed',
        code: 'RUN_START_FAILED',
        message: withTail('the run wrapper could not set itself up', context.stderrTail),
      };
  }
}

/**
 * No start marker ever came: the login shell could not run the wrapper at all (no /bin/sh: 126/127),
 * or something else failed before it. The preamble is all there is to explain it.
 */
export function outcomeWithoutMarker(
  end: { code: number | null; signal: string | null },
  preamble: string,
): RunOutcome {
  const status = end.signal === null ? `exit code ${String(end.code)}` : `signal ${end.signal}`;
  const isUnsupported = end.code === 126 || end.code === 127;
  return {
    kind: 'start_failed',
    code: isUnsupported ? 'WRAPPER_UNSUPPORTED' : 'RUN_START_FAILED',
    message: withTail(`the run wrapper never started (${status})`, preamble),
  };
}
