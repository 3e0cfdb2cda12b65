import { RelayEventSchema, type RelayEvent, type RelayEventDraft } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';

/**
 * One idea's event history: every relayed event gets the next `seq` and goes to `events.ndjson` on the idea's
 * host, in batches (one append per burst, not one per event). The newest events stay in memory, bounded by count
 * and bytes, so a reconnecting client is usually served without reading the file; older ones are read back.
 */
export type HistoryFiles = Pick<HostFiles, 'readFile' | 'writeFileAtomic' | 'appendFile'>;

export interface IdeaHistoryOptions {
  files: HistoryFiles;
  path: string;
  /** How long appends wait to be batched with later ones. */
  flushDelayMs?: number;
  memoryEvents?: number;
  memoryBytes?: number;
  now?: () => Date;
  /** Told about what went wrong in the background (an append that failed, a corrupt line skipped). */
  onError?: (error: CatalystError) => void;
}

interface Stored {
  event: RelayEvent;
  line: string;
}

type Listener = (event: RelayEvent) => void;

export class IdeaHistory {
  readonly #options: Required<Omit<IdeaHistoryOptions, 'onError'>> & Pick<IdeaHistoryOptions, 'onError'>;
  readonly #tail: Stored[] = [];
  #tailBytes = 0;
  #lastSeq: number;
  #pending: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #listeners = new Set<Listener>();

  private constructor(options: IdeaHistoryOptions, stored: Stored[]) {
    this.#options = {
      flushDelayMs: 25,
      // Every idea opened since start keeps its tail: small enough for hundreds of ideas (scripts/bench-relay),
      // large enough that a client reconnecting after a blip is served from memory.
      memoryEvents: 256,
      memoryBytes: 2 * 1024 * 1024,
      now: () => new Date(),
      ...options,
    };
    this.#lastSeq = stored.at(-1)?.event.seq ?? 0;
    for (const item of stored) this.#remember(item);
  }

  /** Reads the history file; a partial last line (a crash mid-append) is cut off so later appends stay whole. */
  static async open(options: IdeaHistoryOptions): Promise<IdeaHistory> {
    const { text, missing } = await readText(options.files, options.path);
    const complete = text.endsWith('\n') || text === '' ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (!missing && complete !== text) await options.files.writeFileAtomic(options.path, complete);
    return new IdeaHistory(options, parseLines(complete, options));
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Assigns the next seq and the time, tells the listeners at once, and queues the write. */
  append(draft: RelayEventDraft): RelayEvent {
    const event = RelayEventSchema.parse({
      ...draft,
      seq: this.#lastSeq + 1,
      ts: this.#options.now().toISOString(),
    });
    this.#lastSeq = event.seq;
    const line = `${JSON.stringify(event)}\n`;
    this.#remember({ event, line });
    this.#pending.push(line);
    this.#timer ??= setTimeout(() => void this.flush(), this.#options.flushDelayMs);
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /** Resolves once every event appended so far is on the host (or its failure was reported). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.join('');
    this.#pending = [];
    if (batch !== '') {
      this.#writing = this.#writing.then(() =>
        this.#options.files.appendFile(this.#options.path, batch).catch((error: unknown) => {
          this.#report(
            new CatalystError('HISTORY_CORRUPT', 'Could not append to the event history.', { cause: error }),
          );
        }),
      );
    }
    return this.#writing;
  }

  /** Events with seq > sinceSeq, oldest first. */
  async since(sinceSeq: number, limit = Number.POSITIVE_INFINITY): Promise<RelayEvent[]> {
    const fromMemory = this.#fromMemory(sinceSeq);
    if (fromMemory) return fromMemory.slice(0, limit);
    await this.flush();
    const { text } = await readText(this.#options.files, this.#options.path);
    const fromFile = parseLines(text, this.#options).map((item) => item.event);
    const newestOnFile = fromFile.at(-1)?.seq ?? 0;
    const later = this.#tail.filter((item) => item.event.seq > newestOnFile).map((item) => item.event);
    return [...fromFile, ...later].filter((event) => event.seq > sinceSeq).slice(0, limit);
  }

  /**
   * Replays every event after `sinceSeq`, then delivers live ones, in seq order with no gap and no duplicate:
   * live events that arrive while the replay is read from the host are held back until it is delivered.
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
    const lastSeq = this.#lastSeq;
    try {
      for (const event of await this.since(sinceSeq)) deliver(event);
      for (const event of held) deliver(event);
    } finally {
      this.#listeners.delete(hold);
    }
    this.#listeners.add(deliver);
    return { lastSeq, unsubscribe: () => this.#listeners.delete(deliver) };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await this.flush();
  }

  #fromMemory(sinceSeq: number): RelayEvent[] | undefined {
    const oldest = this.#tail[0]?.event.seq;
    const isCovered = oldest === undefined ? sinceSeq >= this.#lastSeq : sinceSeq >= oldest - 1;
    if (!isCovered) return undefined;
    return this.#tail.filter((item) => item.event.seq > sinceSeq).map((item) => item.event);
  }

  #remember(item: Stored): void {
    this.#tail.push(item);
    this.#tailBytes += item.line.length;
    const { memoryEvents, memoryBytes } = this.#options;
    while (this.#tail.length > 1 && (this.#tail.length > memoryEvents || this.#tailBytes > memoryBytes)) {
      this.#tailBytes -= this.#tail.shift()?.line.length ?? 0;
    }
  }

  #report(error: CatalystError): void {
    this.#options.onError?.(error);
  }
}

async function readText(files: HistoryFiles, path: string): Promise<{ text: string; missing: boolean }> {
  try {
    return { text: (await files.readFile(path)).toString('utf8'), missing: false };
  } catch (error) {
    if (error instanceof CatalystError && error.code === 'FILE_NOT_FOUND') return { text: '', missing: true };
    throw error;
  }
}

function parseLines(text: string, options: IdeaHistoryOptions): Stored[] {
  const stored: Stored[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const parsed = safeParseLine(line);
    if (parsed && parsed.seq > (stored.at(-1)?.event.seq ?? 0)) {
      stored.push({ event: parsed, line: `${line}\n` });
    } else {
      options.onError?.(
        new CatalystError('HISTORY_CORRUPT', `Skipped an unreadable line in ${options.path}.`),
      );
    }
  }
  return stored;
}

function safeParseLine(line: string): RelayEvent | undefined {
  try {
    const parsed = RelayEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
