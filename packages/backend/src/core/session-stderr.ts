import { findTrailerStart } from './run-markers.ts';
import { ATTACH_MARKER, SESSION_END_MARKER } from './vm-session-shell.ts';

/**
 * The reader's half of the attach script's streams (vm-session-shell.ts renders the other half): A prints
 * `@@catalyst-attach start` first on stdout and on stderr (what comes before is the login shell's rc-file noise),
 * and last, on stderr, `\n@@catalyst-session-end code=… reason=…\n` when the session is over.
 */

const EMPTY = Buffer.alloc(0);
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
 * words itself is passed on, and what is held back stays as short as a trailer line (issue 25, item 13; with the run
 * wrapper's reader's own findTrailerStart, core/run-markers.ts).
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
      const cut = findTrailerStart(data, SESSION_END_MARKER);
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
