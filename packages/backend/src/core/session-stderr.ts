import { ATTACH_MARKER, SESSION_END_MARKER } from './vm-session-shell.ts';

/**
 * The reader's half of the attach script's streams (vm-session-shell.ts renders the other half): A prints
 * `@@catalyst-attach start` first on stdout and on stderr (what comes before is the login shell's rc-file noise),
 * and last, on stderr, `\n@@catalyst-session-end code=… reason=…\n` when the session is over.
 */

const EMPTY = Buffer.alloc(0);
const NEWLINE = 0x0a;
/** A trailer line is about 50 bytes; a longer candidate is the job's own output and is released. */
const TRAILER_LIMIT = 128;
const TRAILER_START = `\n${SESSION_END_MARKER}`;
const TRAILER_PATTERN = new RegExp(`^\\n${SESSION_END_MARKER} code=(\\d{1,3}) reason=([a-z_]{1,32})\\n?$`);

/**
 * Drops the bytes of `marker` at the very start of a stream (and anything before it: rc-file noise). Until the
 * marker comes, only as many bytes are kept as could be the start of a marker split across chunks.
 */
export function stripMarker(marker: string, onSeen?: () => void): (chunk: Buffer) => Buffer {
  let seen = EMPTY;
  let isDone = false;
  return (chunk) => {
    if (isDone) return chunk;
    const data = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const at = data.indexOf(marker);
    if (at === -1) {
      seen = Buffer.from(data.subarray(Math.max(0, data.length - marker.length + 1)));
      return EMPTY;
    }
    isDone = true;
    seen = EMPTY;
    onSeen?.();
    return data.subarray(at + marker.length);
  };
}

/** Whether `bytes` (from a `\n` on) could still grow into, or already is, the trailer line. */
function isTrailerCandidate(bytes: Buffer): boolean {
  if (bytes.length > TRAILER_LIMIT) return false;
  const text = bytes.toString('latin1');
  const newline = text.indexOf('\n', 1);
  if (newline !== -1 && newline !== text.length - 1) return false;
  return text.startsWith(TRAILER_START) || TRAILER_START.startsWith(text);
}

/** Where a held-back tail may start: the last `\n` (or the one before a final complete line) that could begin it. */
function findTrailerStart(data: Buffer): number {
  const last = data.lastIndexOf(NEWLINE);
  if (last === -1) return data.length;
  if (last === data.length - 1 && last > 0) {
    const previous = data.lastIndexOf(NEWLINE, last - 1);
    if (previous !== -1 && isTrailerCandidate(data.subarray(previous))) return previous;
  }
  return isTrailerCandidate(data.subarray(last)) ? last : data.length;
}

export interface SessionTrailer {
  code: number;
  reason: string;
}

export interface SessionStderrFilter {
  /** The bytes of the job's stderr in `chunk` (possibly none): a possible trailer is held back. */
  push(chunk: Buffer): Buffer;
  /** End of the stream: what was held back and turned out not to be the trailer. */
  flush(): Buffer;
  /** Once flushed: the trailer, when the stream's last line was one. */
  trailer(): SessionTrailer | undefined;
}

/**
 * stderr after A's start marker. A's trailer (`\n@@catalyst-session-end code=… reason=…\n`) is the stream's last
 * line, so it is taken only at the end, from at most one short held-back line: a job that prints the marker's
 * words itself is passed on, and what is held back never grows past TRAILER_LIMIT (issue 25, item 13; as the run
 * wrapper's reader, core/run-markers.ts).
 */
export function createSessionStderrFilter(): SessionStderrFilter {
  const strip = stripMarker(`${ATTACH_MARKER} start\n`);
  let held = EMPTY;
  let trailer: SessionTrailer | undefined;
  return {
    push(chunk) {
      const fresh = strip(chunk);
      if (fresh.length === 0) return EMPTY;
      const data = held.length === 0 ? fresh : Buffer.concat([held, fresh]);
      const cut = findTrailerStart(data);
      held = cut === data.length ? EMPTY : Buffer.from(data.subarray(cut));
      return data.subarray(0, cut);
    },
    flush() {
      const match = TRAILER_PATTERN.exec(held.toString('latin1'));
      const rest = match === null ? held : EMPTY;
      if (match !== null) trailer = { code: Number(match[1]), reason: match[2] ?? 'exit' };
      held = EMPTY;
      return rest;
    },
    trailer: () => trailer,
  };
}
