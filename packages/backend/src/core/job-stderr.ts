import { findTrailerStart } from './run-markers.ts';
import { isMarkerShape, markerText, parseMarkerLine, VM_MARKERS } from './vm-markers.ts';

/**
 * The reader's half of the attach script's streams (vm-job-shell.ts renders the other half): A prints
 * `@@catalyst-attach start` first on stdout and on stderr (what comes before is the login shell's rc-file noise),
 * and last, on stderr, `\n@@catalyst-session-end code=… reason=…\n` when the session is over.
 */

const EMPTY = Buffer.alloc(0);
/** The start marker, on stdout and on stderr. */
export const ATTACH_START_LINE = `${markerText(VM_MARKERS.attach, 'start')}\n`;
const SESSION_END_MARKER = markerText(VM_MARKERS.sessionEnd);

/** What was held back, when it is exactly A's trailer: `\n@@catalyst-session-end code=<n> reason=<why>\n`. */
function parseSessionTrailer(held: Buffer): JobTrailer | undefined {
  const text = held.toString('latin1');
  if (!text.startsWith('\n')) return undefined;
  const marker = parseMarkerLine(text.slice(1));
  if (!isMarkerShape(marker, VM_MARKERS.sessionEnd, { keys: ['code', 'reason'] })) return undefined;
  const code = marker.fields.get('code') ?? '';
  const reason = marker.fields.get('reason') ?? '';
  if (!/^\d{1,3}$/.test(code) || !/^[a-z_]{1,32}$/.test(reason)) return undefined;
  return { code: Number(code), reason };
}

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

export interface JobTrailer {
  code: number;
  reason: string;
}

export interface JobStderrFilter {
  /** The bytes of the job's stderr in `chunk` (possibly none): a possible trailer is held back. */
  push(chunk: Buffer): Buffer;
  /** End of the stream: what was held back and turned out not to be the trailer. */
  flush(): Buffer;
  /** Once flushed: the trailer, when the stream's last line was one. */
  trailer(): JobTrailer | undefined;
}

/**
 * stderr after A's start marker. A's trailer (`\n@@catalyst-session-end code=… reason=…\n`) is the stream's last
 * line, so it is taken only at the end, from at most one short held-back line: a job that prints the marker's
 * words itself is passed on, and what is held back stays as short as a trailer line (issue 25, item 13; with the run
 * wrapper's reader's own findTrailerStart, core/run-markers.ts).
 */
export function createJobStderrFilter(): JobStderrFilter {
  const strip = stripMarker(ATTACH_START_LINE);
  let held = EMPTY;
  let trailer: JobTrailer | undefined;
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
      trailer = parseSessionTrailer(held);
      const rest = trailer === undefined ? held : EMPTY;
      held = EMPTY;
      return rest;
    },
    trailer: () => trailer,
  };
}
