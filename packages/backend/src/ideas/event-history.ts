import { RelayEventSchema, type RelayEvent, type RelayEventDraft } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import type { HistoryIndex } from './history-index.ts';
import { readLatest, type LatestEvents, type LatestRequest } from './history-latest.ts';
import { readEvents } from './history-lines.ts';
import { corruptLine, readOpenState, sidePaths, type OpenState, type SidePaths } from './history-open.ts';
import { HistoryWriter } from './history-writer.ts';
import { RESERVE_BLOCK, writeReservation } from './seq-reservation.ts';

/**
 * One idea's event history: every relayed event gets the next `seq` and goes to `events.ndjson` on the idea's
 * host, in batches (one append per burst, not one per event). Nothing reads the file whole: a sparse index
 * (`events.idx`, history-index.ts) finds where the events after a seq start, and reads are ranged and capped, so a
 * replay page costs the same at seq 100 as at seq 10 million. The newest events stay in memory, bounded by count
 * and bytes. A `seq` is shown only below a durable reservation (`events.seq`, seq-reservation.ts), and an append
 * that fails stays queued and is retried, so a crash or a full disk never makes two events share a number.
 */
export type HistoryFiles = Pick<
  HostFiles,
  'readFile' | 'readRange' | 'writeFileAtomic' | 'appendFile' | 'stat'
>;

export interface IdeaHistoryOptions {
  files: HistoryFiles;
  path: string;
  /** How long appends wait to be batched with later ones. */
  flushDelayMs?: number;
  memoryEvents?: number;
  memoryBytes?: number;
  /** What one read from the file holds at most (a replay page): events past it are left for the next page. */
  readBytes?: number;
  /** The longest wait between attempts at an append (or a reservation) that keeps failing. */
  maxRetryMs?: number;
  now?: () => Date;
  /** Told about what went wrong in the background (an append that failed, a corrupt line skipped). */
  onError?: (error: CatalystError) => void;
  /** Told about each event as it is shown to subscribers (push notifications watch every idea through it). */
  onShown?: (event: RelayEvent) => void;
}

type Listener = (event: RelayEvent) => void;
/** A shown (or held) event and the bytes of its line, which count against `memoryBytes`. */
interface Remembered {
  event: RelayEvent;
  bytes: number;
}
type Settings = Required<Omit<IdeaHistoryOptions, 'onError' | 'onShown'>> &
  Pick<IdeaHistoryOptions, 'onError' | 'onShown'>;

export class IdeaHistory {
  readonly #options: Settings;
  readonly #paths: SidePaths;
  readonly #index: HistoryIndex;
  readonly #tail: Remembered[] = [];
  #tailBytes = 0;
  /** Every shown event after this seq is in #tail. */
  #tailFloor: number;
  #lastSeq: number;
  #newestEvent: number;
  /** The seq of the newest event shown (or on the file at open): where a replay ends. */
  #newestShown: number;
  /** The newest seq shown or reserved for showing: after open, the reservation, above every event there is. */
  #shownSeq: number;
  #reservedUpTo: number;
  #reserving: Promise<void> | undefined;
  /** Numbered but not shown yet: their seq is above the reservation on the host. */
  readonly #held: Remembered[] = [];
  readonly #writer: HistoryWriter;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #retryMs = 0;
  #isClosed = false;
  #writing: Promise<void> = Promise.resolve();
  readonly #listeners = new Set<Listener>();

  private constructor(options: IdeaHistoryOptions, opened: OpenState) {
    this.#options = {
      flushDelayMs: 25,
      // Only ideas with a subscriber or a run stay open (ideas/history-cache.ts); a client reconnecting after a
      // blip is served from memory.
      memoryEvents: 256,
      memoryBytes: 2 * 1024 * 1024,
      readBytes: 8 * 1024 * 1024,
      maxRetryMs: 30_000,
      now: () => new Date(),
      ...options,
    };
    this.#paths = sidePaths(options.path);
    this.#index = opened.index;
    this.#writer = new HistoryWriter(options.files, { paths: this.#paths, index: opened.index }, opened);
    this.#newestEvent = opened.newestOnFile;
    this.#newestShown = opened.newestOnFile;
    this.#lastSeq = opened.start;
    this.#shownSeq = opened.start;
    this.#tailFloor = opened.start;
    this.#reservedUpTo = opened.reservedUpTo;
  }

  /** Finds the newest seq from the file's tail (and the index), never reading the whole file. */
  static async open(options: IdeaHistoryOptions): Promise<IdeaHistory> {
    const history = new IdeaHistory(options, await readOpenState(options));
    await history.#reserve();
    return history;
  }

  /** The newest seq shown (or that an earlier process may have shown): a client past it holds a stale history. */
  get lastSeq(): number {
    return this.#shownSeq;
  }

  /** The seq of the newest event there is (after a restart, below `lastSeq` by the unused reservation). */
  get newestEventSeq(): number {
    return this.#newestEvent;
  }

  /** Nothing listens and nothing waits to be written: closing it loses nothing. */
  get isIdle(): boolean {
    return this.#listeners.size === 0 && this.#writer.queuedCount === 0 && this.#held.length === 0;
  }

  /** Assigns the next seq and the time, tells the listeners (once the seq is reserved), and queues the write. */
  append(draft: RelayEventDraft): RelayEvent {
    const event = RelayEventSchema.parse({
      ...draft,
      seq: this.#lastSeq + 1,
      ts: this.#options.now().toISOString(),
    });
    this.#lastSeq = event.seq;
    this.#newestEvent = event.seq;
    const line = `${JSON.stringify(event)}\n`;
    this.#writer.queue(event.seq, line);
    const item = { event, bytes: line.length };
    if (this.#retryTimer === undefined) {
      this.#timer ??= setTimeout(() => void this.flush(), this.#options.flushDelayMs);
    }
    if (this.#held.length === 0 && event.seq <= this.#reservedUpTo) this.#show(item);
    else this.#held.push(item);
    if (this.#reservedUpTo - event.seq < RESERVE_BLOCK / 2) void this.#reserve();
    return event;
  }

  /** Resolves once an attempt to write every event appended so far has ended (a failure is reported and retried). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writer.seal();
    this.#writing = this.#writing.then(() => this.#writeQueued());
    return this.#writing;
  }

  /** Shown events with seq > sinceSeq, oldest first: at most `limit`, and at most `readBytes` read from the file. */
  async since(sinceSeq: number, limit = Number.POSITIVE_INFINITY): Promise<RelayEvent[]> {
    const upTo = this.#shownSeq;
    if (sinceSeq >= upTo) return [];
    if (sinceSeq >= this.#tailFloor) {
      return this.#tail
        .filter((item) => item.event.seq > sinceSeq)
        .map((item) => item.event)
        .slice(0, limit);
    }
    // Taken together, before any await: the file up to #fileBytes and #unwritten hold every event, once.
    const { fileBytes: to, queued } = this.#writer.snapshot();
    const { events, isComplete } = await readEvents(this.#options.files, this.#options.path, {
      from: this.#index.offsetAfter(sinceSeq),
      to,
      sinceSeq,
      limit,
      maxBytes: this.#options.readBytes,
      onCorrupt: (offset) => {
        this.#report(corruptLine(this.#options.path, offset));
      },
    });
    const newest = events.at(-1)?.seq ?? sinceSeq;
    const all = isComplete ? [...events, ...queued(newest)] : events;
    return all.filter((event) => event.seq <= upTo).slice(0, limit);
  }

  /** The newest shown events (those `select` accepts), oldest first, read backwards within the request's bounds. */
  latest(request: LatestRequest): Promise<LatestEvents> {
    // Taken together, before any await, as in since(): the file up to `to` and `newer` hold every event, once.
    const { fileBytes: to, queued } = this.#writer.snapshot();
    const onCorrupt = (offset: number) => {
      this.#report(corruptLine(this.#options.path, offset));
    };
    const read = { ...request, to, newer: queued(), upTo: this.#shownSeq, onCorrupt };
    return readLatest(this.#options.files, this.#options.path, read);
  }

  /**
   * Replays every event after `sinceSeq`, then delivers live ones, in seq order with no gap and no duplicate:
   * live events that arrive while the replay is read from the host are held back until it is delivered. `lastSeq`
   * is the seq of the newest event shown at the moment of subscribing (0 when there is none), never the
   * reservation above it: a client holding that event has had the whole replay (issue 25, finding 0).
   */
  async subscribe(
    sinceSeq: number,
    listener: Listener,
  ): Promise<{ lastSeq: number; unsubscribe: () => void }> {
    let delivered = sinceSeq;
    const deliver = (event: RelayEvent): void => {
      if (event.seq <= delivered) return;
      delivered = event.seq;
      listener(event);
    };
    const held: RelayEvent[] = [];
    const hold: Listener = (event) => held.push(event);
    this.#listeners.add(hold);
    const lastSeq = this.#newestShown;
    try {
      for (const event of await this.since(sinceSeq)) deliver(event);
      for (const event of held) deliver(event);
    } finally {
      this.#listeners.delete(hold);
    }
    this.#listeners.add(deliver);
    return { lastSeq, unsubscribe: () => this.#listeners.delete(deliver) };
  }

  /** Writes what is queued (one attempt); when all of it is written, gives back the unused reservation. */
  async close(): Promise<void> {
    this.#isClosed = true;
    this.#listeners.clear();
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    await this.flush();
    await this.#reserving;
    if (this.#writer.queuedCount > 0 || this.#reservedUpTo === this.#lastSeq) return;
    await writeReservation(this.#options.files, this.#paths.reservation, this.#lastSeq).catch(
      (error: unknown) => {
        this.#report(new CatalystError('HISTORY_CORRUPT', 'Could not save the seq.', { cause: error }));
      },
    );
  }

  #show(item: Remembered): void {
    this.#shownSeq = item.event.seq;
    this.#newestShown = item.event.seq;
    this.#tail.push(item);
    this.#tailBytes += item.bytes;
    const { memoryEvents, memoryBytes } = this.#options;
    while (this.#tail.length > 1 && (this.#tail.length > memoryEvents || this.#tailBytes > memoryBytes)) {
      const dropped = this.#tail.shift();
      if (dropped === undefined) break;
      this.#tailBytes -= dropped.bytes;
      this.#tailFloor = dropped.event.seq;
    }
    for (const listener of this.#listeners) listener(item.event);
    this.#options.onShown?.(item.event);
  }

  /** Makes `reservedUpTo` a block ahead durable, then shows the events that waited for it. */
  #reserve(): Promise<void> {
    this.#reserving ??= (async () => {
      const upTo = this.#lastSeq + RESERVE_BLOCK;
      try {
        await writeReservation(this.#options.files, this.#paths.reservation, upTo);
        this.#reservedUpTo = Math.max(this.#reservedUpTo, upTo);
        for (let next = this.#held[0]; next && next.event.seq <= this.#reservedUpTo; next = this.#held[0]) {
          this.#held.shift();
          this.#show(next);
        }
      } catch (error) {
        this.#report(
          new CatalystError('HISTORY_CORRUPT', 'Could not reserve event numbers.', { cause: error }),
        );
        this.#scheduleRetry();
      } finally {
        this.#reserving = undefined;
      }
    })();
    return this.#reserving;
  }

  async #writeQueued(): Promise<void> {
    try {
      await this.#writer.write();
      this.#retryMs = 0;
    } catch (error) {
      this.#report(
        isCatalystError(error) && error.code === 'HISTORY_CORRUPT'
          ? error
          : new CatalystError('HISTORY_CORRUPT', 'Could not append to the event history; will retry.', {
              cause: error,
            }),
      );
      if (this.#writer.queuedCount > 0) this.#scheduleRetry();
    }
  }

  #scheduleRetry(): void {
    if (this.#isClosed || this.#retryTimer !== undefined) return;
    this.#retryMs = Math.min(Math.max(this.#retryMs * 2, 100), this.#options.maxRetryMs);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#held.length > 0) void this.#reserve();
      if (this.#writer.queuedCount > 0) void this.flush();
    }, this.#retryMs);
  }

  #report(error: CatalystError): void {
    this.#options.onError?.(error);
  }
}
