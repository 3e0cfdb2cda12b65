import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import type { HostFiles } from '../host/host.ts';

/**
 * Reading an `events.ndjson` a byte range at a time (HostFiles.readRange): the file can outgrow what one Buffer or
 * one string may hold (V8 stops at ~512 MiB), so nothing here reads it whole. A line is `{...event}\n`.
 */

export type RangeFiles = Pick<HostFiles, 'readRange'>;

/** Large enough that a read is one round trip for most pages, small enough to be nothing in memory. */
export const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

export interface LineRange {
  from: number;
  /** Exclusive: the end of what is known to be written. */
  to: number;
}

/**
 * Calls `visit` with every complete line in the range (without its `\n`) and the offset where it starts, in order;
 * `visit` returns false to stop. Resolves with the offset after the last complete line visited or skipped.
 * A line with no `\n` before `to` (a crash mid-append) is not visited.
 */
export async function forEachLine(
  files: RangeFiles,
  path: string,
  range: LineRange & { visit: (line: Buffer, offset: number) => boolean },
): Promise<number> {
  let pieces: Buffer[] = [];
  let lineStart = range.from;
  let position = range.from;
  while (position < range.to) {
    const chunk = await files.readRange(path, position, Math.min(CHUNK_BYTES, range.to - position));
    if (chunk.length === 0) break;
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      // Pieces are joined only when a line spans chunks, so a 10 MB line is copied once, not once per chunk.
      const part = chunk.subarray(start, end);
      const line = pieces.length === 0 ? part : Buffer.concat([...pieces, part]);
      pieces = [];
      const isWanted = range.visit(line, lineStart);
      lineStart += line.length + 1;
      start = end + 1;
      if (!isWanted) return lineStart;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
    position += chunk.length;
  }
  return lineStart;
}

/** The event on a line, or undefined for a line that is not one (reported by the caller). */
export function parseEventLine(line: Buffer | string): RelayEvent | undefined {
  try {
    const parsed = RelayEventSchema.safeParse(JSON.parse(line.toString()));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface EventRead extends LineRange {
  sinceSeq: number;
  limit: number;
  /** Stop once this many bytes of events are held (one event is always returned, whatever its size). */
  maxBytes: number;
  onCorrupt: (offset: number) => void;
}

/** Events with seq > sinceSeq in the range, in file order, skipping lines that are not events or go backwards. */
export async function readEvents(
  files: RangeFiles,
  path: string,
  request: EventRead,
): Promise<{ events: RelayEvent[]; isComplete: boolean }> {
  const events: RelayEvent[] = [];
  let bytes = 0;
  let newest = request.sinceSeq;
  let isComplete = true;
  await forEachLine(files, path, {
    from: request.from,
    to: request.to,
    visit: (line, offset) => {
      const event = parseEventLine(line);
      if (event === undefined) {
        request.onCorrupt(offset);
        return true;
      }
      if (event.seq <= newest) return true;
      newest = event.seq;
      events.push(event);
      bytes += line.length;
      if (events.length < request.limit && bytes < request.maxBytes) return true;
      isComplete = false;
      return false;
    },
  });
  return { events, isComplete };
}
