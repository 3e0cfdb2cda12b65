import type { RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { CHUNK_BYTES, parseEventLine, type RangeFiles } from './history-lines.ts';

/**
 * The newest events of an `events.ndjson`, read backwards from its end a range at a time, so that what a reader
 * holds is bounded by what it asked for, not by the history's size (a recap needs the last 20 messages of a
 * history that may hold 1 GiB).
 */

const NEWLINE = 0x0a;

export interface LatestRequest {
  /** At most this many events are returned: the newest. */
  maxEvents: number;
  /** At most about this many bytes of events (as JSON lines): the newest one is returned whatever its size. */
  maxBytes: number;
  /** Only events it accepts are returned and counted; the others are read past. All, without it. */
  select?: (event: RelayEvent) => boolean;
  /** Reading stops after an accepted event this says is the oldest wanted (a run's `run:started`). */
  isOldest?: (event: RelayEvent) => boolean;
  /**
   * Reading stops once about this many bytes of the file were read past, accepted or not (a search for what may
   * not be there, e.g. a run id that is not in the history). No bound without it.
   */
  maxScanBytes?: number;
}

export interface LatestEvents {
  /** Oldest first. */
  events: RelayEvent[];
  /** False when an older event that `select` accepts was left out (the limits were reached). */
  isComplete: boolean;
}

export interface LatestRead extends LatestRequest {
  /** Exclusive end of the whole events on file; a partial last line before it is not read. */
  to: number;
  /** Events after the file's (queued, not written yet), oldest first. */
  newer: readonly RelayEvent[];
  /** Events above this seq are not shown yet, and are left out. */
  upTo: number;
  onCorrupt: (offset: number) => void;
}

/** The newest events, from `newer` and then the file backwards; seqs that do not go down (a retried append) are skipped. */
export async function readLatest(files: RangeFiles, path: string, read: LatestRead): Promise<LatestEvents> {
  const kept: RelayEvent[] = [];
  let bytes = 0;
  let below = Number.POSITIVE_INFINITY;
  let isComplete = true;
  /** False when the limits are reached: stop reading. */
  const take = (event: RelayEvent, size: number): boolean => {
    if (event.seq > read.upTo || event.seq >= below) return true;
    below = event.seq;
    if (read.select !== undefined && !read.select(event)) return true;
    if (kept.length >= read.maxEvents || (kept.length > 0 && bytes + size > read.maxBytes)) {
      isComplete = false;
      return false;
    }
    kept.push(event);
    bytes += size;
    return read.isOldest?.(event) !== true;
  };
  const isDone = [...read.newer]
    .reverse()
    .some((event) => !take(event, Buffer.byteLength(JSON.stringify(event)) + 1));
  if (!isDone) {
    let scanned = 0;
    await forEachLineBackward(files, path, {
      to: read.to,
      visit: (line, offset) => {
        scanned += line.length + 1;
        if (read.maxScanBytes !== undefined && scanned > read.maxScanBytes) {
          isComplete = false;
          return false;
        }
        const event = parseEventLine(line);
        if (event !== undefined) return take(event, line.length + 1);
        read.onCorrupt(offset);
        return true;
      },
    });
  }
  return { events: kept.reverse(), isComplete };
}

/**
 * Calls `visit` with every complete line before `to` (without its `\n`) and the offset where it starts, newest
 * first, until it returns false. What follows the last `\n` before `to` is a partial line (a crash mid-append) and
 * is not visited. A line is joined from its pieces once, however many chunks it spans.
 */
export async function forEachLineBackward(
  files: RangeFiles,
  path: string,
  range: { to: number; visit: (line: Buffer, offset: number) => boolean },
): Promise<void> {
  // The start of the line being assembled lies in a chunk not read yet; these are its later pieces, in order.
  let pieces: Buffer[] = [];
  let isTrailing = true;
  for (let end = range.to; end > 0;) {
    const start = Math.max(0, end - CHUNK_BYTES);
    const chunk = await files.readRange(path, start, end - start);
    if (chunk.length !== end - start)
      throw new CatalystError('HISTORY_CORRUPT', `${path} is shorter than the ${String(end)} bytes written.`);
    let stop = chunk.length;
    for (let newline = lastNewline(chunk, stop); newline !== -1; newline = lastNewline(chunk, stop)) {
      const part = chunk.subarray(newline + 1, stop);
      const line = pieces.length === 0 ? part : Buffer.concat([part, ...pieces]);
      pieces = [];
      stop = newline;
      if (isTrailing) isTrailing = false;
      else if (!range.visit(line, start + newline + 1)) return;
    }
    pieces.unshift(chunk.subarray(0, stop));
    end = start;
  }
  // The first line of the file has no newline before it.
  if (!isTrailing) range.visit(Buffer.concat(pieces), 0);
}

/** The last `\n` before index `stop`, or -1 (Buffer.lastIndexOf reads a negative offset from the end). */
function lastNewline(chunk: Buffer, stop: number): number {
  return stop === 0 ? -1 : chunk.lastIndexOf(NEWLINE, stop - 1);
}
