import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import { loadIndex, type HistoryIndex } from './history-index.ts';
import { readEvents } from './history-lines.ts';
import { endsWithNewline } from './history-writer.ts';
import { readReservation, RESERVE_BLOCK } from './seq-reservation.ts';

/** What opening a history learns from its files, without reading `events.ndjson` whole. */

export type OpenFiles = Pick<HostFiles, 'readFile' | 'readRange' | 'writeFileAtomic' | 'appendFile' | 'stat'>;

export interface OpenState {
  index: HistoryIndex;
  fileBytes: number;
  needsNewline: boolean;
  /** The seq of the newest event on file. */
  newestOnFile: number;
  /** Numbering goes on after this: above every seq on file and every seq an earlier process reserved. */
  start: number;
  reservedUpTo: number;
}

export interface SidePaths {
  events: string;
  index: string;
  reservation: string;
}

/** `events.ndjson` → its index `events.idx` and its seq reservation `events.seq`, in the same folder. */
export function sidePaths(path: string): SidePaths {
  const base = path.replace(/\.ndjson$/, '');
  return { events: path, index: `${base}.idx`, reservation: `${base}.seq` };
}

export async function readOpenState(options: {
  files: OpenFiles;
  path: string;
  onError?: ((error: CatalystError) => void) | undefined;
}): Promise<OpenState> {
  const { files, path } = options;
  const paths = sidePaths(path);
  const report = (error: CatalystError) => options.onError?.(error);
  const fileBytes = await sizeOf(files, path);
  const index = await loadIndex(files, paths, fileBytes);
  // The newest events: from the last checkpoint (at most CHECKPOINT_BYTES and a line before the end) on.
  const { events } = await readEvents(files, path, {
    from: index.last?.offset ?? 0,
    to: fileBytes,
    sinceSeq: 0,
    limit: Number.POSITIVE_INFINITY,
    maxBytes: Number.POSITIVE_INFINITY,
    onCorrupt: (offset) => report(corruptLine(path, offset)),
  });
  const newestOnFile = events.at(-1)?.seq ?? index.last?.seq ?? 0;
  const reserved = await readReservation(files, paths.reservation, report);
  return {
    index,
    fileBytes,
    needsNewline: fileBytes > 0 && !(await endsWithNewline(files, path, fileBytes)),
    newestOnFile,
    // An unreadable reservation: a block past the file is the best guess at what may have been shown.
    start: Math.max(newestOnFile, reserved ?? newestOnFile + RESERVE_BLOCK),
    reservedUpTo: reserved ?? 0,
  };
}

async function sizeOf(files: OpenFiles, path: string): Promise<number> {
  try {
    return (await files.stat(path)).size;
  } catch (error) {
    if (error instanceof CatalystError && error.code === 'FILE_NOT_FOUND') return 0;
    throw error;
  }
}

export function corruptLine(path: string, offset: number): CatalystError {
  return new CatalystError(
    'HISTORY_CORRUPT',
    `Skipped an unreadable line at byte ${String(offset)} of ${path}.`,
  );
}
