import type { RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import type { HistoryIndex } from './history-index.ts';

/**
 * The append side of `events.ndjson`: events queued in order, written in batches, and kept queued until a write
 * succeeds (a full disk, a read-only file, a lost SSH connection: retried, never dropped). It knows how many bytes
 * of the file are whole events, so readers never look past them, and feeds the index as the file grows.
 */

export type WriterFiles = Pick<HostFiles, 'appendFile' | 'readRange' | 'stat'>;

export interface Stored {
  event: RelayEvent;
  line: string;
}

export interface WriterState {
  fileBytes: number;
  /** The file ends in a partial line (a crash mid-append): the next append starts a line of its own. */
  needsNewline: boolean;
}

export class HistoryWriter {
  readonly #files: WriterFiles;
  readonly #paths: { events: string; index: string };
  readonly #index: HistoryIndex;
  #queued: Stored[] = [];
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

  queue(item: Stored): void {
    this.#queued.push(item);
  }

  get queuedCount(): number {
    return this.#queued.length;
  }

  /** Taken together, synchronously: the file up to `fileBytes` and `queued` hold every event, each once. */
  snapshot(): { fileBytes: number; queued: RelayEvent[] } {
    return { fileBytes: this.#fileBytes, queued: this.#queued.map((item) => item.event) };
  }

  /** Writes everything queued in one append; rejects (keeping it queued) when the append fails. */
  async write(): Promise<void> {
    const batch = this.#queued.slice();
    if (batch.length === 0) return;
    try {
      if (this.#isSizeUncertain) await this.#resync();
      const prefix = this.#needsNewline ? '\n' : '';
      await this.#files.appendFile(this.#paths.events, prefix + batch.map((item) => item.line).join(''));
    } catch (error) {
      this.#isSizeUncertain = true;
      throw error;
    }
    const checkpoints = this.#recordWritten(batch);
    // A checkpoint lost here makes some reads start a little earlier until the next open rebuilds it; nothing else.
    if (checkpoints !== '') {
      await this.#files.appendFile(this.#paths.index, checkpoints).catch((error: unknown) => {
        throw new CatalystError('HISTORY_CORRUPT', 'Could not extend the history index.', { cause: error });
      });
    }
  }

  /** Moves the batch from queued to written; returns the index lines for the checkpoints it crossed. */
  #recordWritten(batch: Stored[]): string {
    let offset = this.#fileBytes + (this.#needsNewline ? 1 : 0);
    let checkpoints = '';
    for (const item of batch) {
      const checkpoint = this.#index.note(item.event.seq, offset);
      if (checkpoint) checkpoints += `${String(checkpoint.seq)} ${String(checkpoint.offset)}\n`;
      offset += Buffer.byteLength(item.line);
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

export async function endsWithNewline(files: WriterFiles, path: string, size: number): Promise<boolean> {
  return (await files.readRange(path, size - 1, 1))[0] === 0x0a;
}
