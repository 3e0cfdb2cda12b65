import type { RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import type { HistoryIndex } from './history-index.ts';
import { parseEventLine } from './history-lines.ts';
import { PRIVATE_FILE } from './private-modes.ts';

/**
 * The append side of `events.ndjson`: events queued in order, written in batches, and kept queued until a write
 * succeeds (a full disk, a read-only file, a lost SSH connection: retried, never dropped). It knows how many bytes
 * of the file are whole events, so readers never look past them, and feeds the index as the file grows.
 */

export type WriterFiles = Pick<HostFiles, 'appendFile' | 'readRange' | 'stat'>;

/**
 * Events waiting to be written, as their lines joined into one string per burst (seal), with each line's seq and
 * byte length for the index. While the host is slow (50 runs appending over one SFTP session, a lost connection)
 * the queue holds seconds of events: as flat text it costs about the bytes it will write, where the events' objects
 * and each line as JSON.stringify builds it (a tree of pieces) cost about twice that, and under load V8 grows the
 * heap in proportion to what is live (bench-relay's load phase).
 */
interface QueuedChunk {
  text: string;
  seqs: number[];
  lineBytes: number[];
}

/** About what one append writes (in UTF-16 units, as close as it needs to be): below V8's large-object size. */
const APPEND_BYTES = 64 * 1024;

export interface WriterState {
  fileBytes: number;
  /** The file ends in a partial line (a crash mid-append): the next append starts a line of its own. */
  needsNewline: boolean;
}

export class HistoryWriter {
  readonly #files: WriterFiles;
  readonly #paths: { events: string; index: string };
  readonly #index: HistoryIndex;
  #queued: QueuedChunk[] = [];
  /** Lines queued since the last seal, and their seqs. */
  #open: { lines: string[]; seqs: number[] } = { lines: [], seqs: [] };
  #queuedCount = 0;
  #fileBytes: number;
  #needsNewline: boolean;
  #isSizeUncertain = false;

  constructor(
    files: WriterFiles,
    where: { paths: { events: string; index: string }; index: HistoryIndex },
    state: WriterState,
  ) {
    this.#files = files;
    this.#paths = where.paths;
    this.#index = where.index;
    this.#fileBytes = state.fileBytes;
    this.#needsNewline = state.needsNewline;
  }

  /** `line` is the event's JSON and a `\n`. */
  queue(seq: number, line: string): void {
    this.#open.lines.push(line);
    this.#open.seqs.push(seq);
    this.#queuedCount += 1;
  }

  get queuedCount(): number {
    return this.#queuedCount;
  }

  /** Joins the lines queued since the last seal into one chunk (the history calls it once per burst). */
  seal(): void {
    const { lines, seqs } = this.#open;
    if (lines.length === 0) return;
    this.#queued.push({
      text: lines.join(''),
      seqs,
      lineBytes: lines.map((line) => Buffer.byteLength(line)),
    });
    this.#open = { lines: [], seqs: [] };
  }

  /**
   * Taken together, synchronously: the file up to `fileBytes` and `queued` hold every event, each once. `queued`
   * parses the lines taken here (each was an event, so none is dropped) after `afterSeq`, for the callers that
   * need them.
   */
  snapshot(): { fileBytes: number; queued: (afterSeq?: number) => RelayEvent[] } {
    this.seal();
    const chunks = this.#queued.slice();
    return {
      fileBytes: this.#fileBytes,
      queued: (afterSeq = 0) => chunks.flatMap((chunk) => eventsAfter(chunk, afterSeq)),
    };
  }

  /**
   * Writes everything queued, in appends of about APPEND_BYTES; rejects (keeping the rest queued) when one fails.
   * Bounded appends keep a backlog (seconds of events after the host was slow) from becoming one string and one
   * Buffer as large as all of it, for every history at once.
   */
  async write(): Promise<void> {
    this.seal();
    for (let left = this.#queued.length; left > 0;) {
      const batch = this.#queued.slice(0, batchLength(this.#queued, left));
      await this.#append(batch);
      left -= batch.length;
    }
  }

  async #append(batch: QueuedChunk[]): Promise<void> {
    try {
      if (this.#isSizeUncertain) await this.#resync();
      const prefix = this.#needsNewline ? '\n' : '';
      await this.#files.appendFile(
        this.#paths.events,
        prefix + batch.map((chunk) => chunk.text).join(''),
        PRIVATE_FILE,
      );
    } catch (error) {
      this.#isSizeUncertain = true;
      throw error;
    }
    const checkpoints = this.#recordWritten(batch);
    // A checkpoint lost here makes some reads start a little earlier until the next open rebuilds it; nothing else.
    if (checkpoints !== '') {
      await this.#files.appendFile(this.#paths.index, checkpoints, PRIVATE_FILE).catch((error: unknown) => {
        throw new CatalystError('HISTORY_CORRUPT', 'Could not extend the history index.', { cause: error });
      });
    }
  }

  /** Moves the batch from queued to written; returns the index lines for the checkpoints it crossed. */
  #recordWritten(batch: QueuedChunk[]): string {
    let offset = this.#fileBytes + (this.#needsNewline ? 1 : 0);
    let checkpoints = '';
    for (const chunk of batch) {
      for (const [index, seq] of chunk.seqs.entries()) {
        const checkpoint = this.#index.note(seq, offset);
        if (checkpoint) checkpoints += `${String(checkpoint.seq)} ${String(checkpoint.offset)}\n`;
        offset += chunk.lineBytes[index] ?? 0;
      }
      this.#queuedCount -= chunk.seqs.length;
    }
    this.#fileBytes = offset;
    this.#needsNewline = false;
    this.#queued = this.#queued.slice(batch.length);
    return checkpoints;
  }

  /** After a failed append part of it may have landed: the next one then starts on a line of its own. */
  async #resync(): Promise<void> {
    const size = (await this.#files.stat(this.#paths.events)).size;
    if (size !== this.#fileBytes) {
      this.#needsNewline = size > 0 && !(await endsWithNewline(this.#files, this.#paths.events, size));
      this.#fileBytes = size;
    }
    this.#isSizeUncertain = false;
  }
}

/** How many of the first `most` chunks one append takes: at least one, then while they fit APPEND_BYTES. */
function batchLength(chunks: readonly QueuedChunk[], most: number): number {
  let length = 0;
  let size = 0;
  for (const chunk of chunks.slice(0, most)) {
    size += chunk.text.length;
    if (length > 0 && size > APPEND_BYTES) break;
    length += 1;
  }
  return length;
}

/** A chunk's events after `afterSeq`; its text is whole lines, one per seq, none holding a raw newline (JSON). */
function eventsAfter(chunk: QueuedChunk, afterSeq: number): RelayEvent[] {
  if ((chunk.seqs.at(-1) ?? 0) <= afterSeq) return [];
  return chunk.text
    .split('\n')
    .filter((_line, index) => (chunk.seqs[index] ?? 0) > afterSeq)
    .flatMap((line) => parseEventLine(line) ?? []);
}

export async function endsWithNewline(files: WriterFiles, path: string, size: number): Promise<boolean> {
  return (await files.readRange(path, size - 1, 1))[0] === 0x0a;
}
