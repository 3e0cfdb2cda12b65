import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import { forEachLine, parseEventLine } from './history-lines.ts';
import { PRIVATE_FILE } from './private-modes.ts';

/**
 * A sparse seq → byte-offset index of `events.ndjson`: one checkpoint (the seq of a line and where it starts) per
 * CHECKPOINT_BYTES of file, so a read for "after seq N" starts at most that far before it, and the index stays
 * small (16 K checkpoints for 1 GiB) however many events there are. Kept beside the history as `events.idx`, one
 * `seq offset` line per checkpoint, appended as the history grows; a missing, torn or stale index is rebuilt by a
 * streaming scan of the history, so it is a cache and never the truth.
 */

export type IndexFiles = Pick<HostFiles, 'readFile' | 'readRange' | 'appendFile' | 'writeFileAtomic'>;

export const CHECKPOINT_BYTES = 64 * 1024;

export interface Checkpoint {
  seq: number;
  offset: number;
}

export class HistoryIndex {
  readonly #seqs: number[] = [];
  readonly #offsets: number[] = [];

  /** Adds a checkpoint when `offset` is far enough past the last one; returns it (for the index file) if so. */
  note(seq: number, offset: number): Checkpoint | undefined {
    const last = this.#offsets.length - 1;
    const lastOffset = this.#offsets[last];
    const lastSeq = this.#seqs[last];
    if (lastOffset !== undefined && lastSeq !== undefined) {
      if (offset < lastOffset + CHECKPOINT_BYTES || seq <= lastSeq) return undefined;
    }
    this.#seqs.push(seq);
    this.#offsets.push(offset);
    return { seq, offset };
  }

  /** Where to start reading for the events after `sinceSeq`: the last checkpoint at or before seq `sinceSeq + 1`. */
  offsetAfter(sinceSeq: number): number {
    let low = 0;
    let high = this.#seqs.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#seqs[mid] ?? 0) <= sinceSeq + 1) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? 0 : (this.#offsets[low - 1] ?? 0);
  }

  get last(): Checkpoint | undefined {
    const seq = this.#seqs.at(-1);
    const offset = this.#offsets.at(-1);
    return seq === undefined || offset === undefined ? undefined : { seq, offset };
  }

  get size(): number {
    return this.#seqs.length;
  }

  serialize(): string {
    return this.#seqs.map((seq, i) => `${String(seq)} ${String(this.#offsets[i] ?? 0)}\n`).join('');
  }
}

/** The index file's checkpoints that can be trusted for a history of `fileBytes`: increasing, inside the file. */
export function parseIndex(text: string, fileBytes: number): { index: HistoryIndex; isClean: boolean } {
  const index = new HistoryIndex();
  const lines = text.split('\n');
  let isClean = text === '' || text.endsWith('\n');
  for (const line of lines.slice(0, -1)) {
    const match = /^(\d+) (\d+)$/.exec(line);
    const seq = Number(match?.[1]);
    const offset = Number(match?.[2]);
    const last = index.last;
    const isValid =
      match !== null &&
      offset < fileBytes &&
      (last === undefined || (seq > last.seq && offset > last.offset));
    if (!isValid || index.note(seq, offset) === undefined) {
      isClean = false;
      break;
    }
  }
  return { index, isClean };
}

/** The index for a history of `fileBytes`: loaded, checked against the history, completed by a scan of the rest. */
export async function loadIndex(
  files: IndexFiles,
  paths: { events: string; index: string },
  fileBytes: number,
): Promise<HistoryIndex> {
  const text = await readOptional(files, paths.index);
  let { index, isClean } = parseIndex(text, fileBytes);
  const last = index.last;
  if (last !== undefined && !(await isCheckpointAt(files, paths.events, last))) {
    index = new HistoryIndex();
    isClean = false;
  }
  const known = index.size;
  await forEachLine(files, paths.events, {
    from: index.last?.offset ?? 0,
    to: fileBytes,
    visit: (line, offset) => {
      const lastOffset = index.last?.offset;
      if (lastOffset === undefined || offset >= lastOffset + CHECKPOINT_BYTES) {
        const seq = parseEventLine(line)?.seq;
        if (seq !== undefined) index.note(seq, offset);
      }
      return true;
    },
  });
  if (!isClean && (text !== '' || index.size > 0))
    await files.writeFileAtomic(paths.index, index.serialize(), PRIVATE_FILE);
  else if (index.size > known) {
    await files.appendFile(paths.index, index.serialize().split('\n').slice(known).join('\n'), PRIVATE_FILE);
  }
  return index;
}

async function isCheckpointAt(files: IndexFiles, path: string, checkpoint: Checkpoint): Promise<boolean> {
  let seq: number | undefined;
  await forEachLine(files, path, {
    from: checkpoint.offset,
    to: Number.MAX_SAFE_INTEGER,
    visit: (line) => {
      seq = parseEventLine(line)?.seq;
      return false;
    },
  });
  return seq === checkpoint.seq;
}

/** A small side file's text, or '' when it does not exist yet. */
export async function readOptional(files: Pick<HostFiles, 'readFile'>, path: string): Promise<string> {
  try {
    return (await files.readFile(path)).toString('utf8');
  } catch (error) {
    if (error instanceof CatalystError && error.code === 'FILE_NOT_FOUND') return '';
    throw error;
  }
}
