import type { IdeaHistory } from './event-history.ts';

/**
 * The open event histories, by idea. A history with a subscriber, a run, or events still to write stays open;
 * the others are closed least recently used first once more than `maxIdle` are open (issue 16 item 10), so
 * opening hundreds of ideas once each does not keep hundreds of tails in memory for the life of the process.
 * A history being closed is reopened only after its close has written everything (its seq goes on from there).
 */

export interface HistoryCacheOptions {
  open: (id: string) => Promise<IdeaHistory>;
  isRunning: (id: string) => boolean;
  maxIdle?: number;
  onCloseError?: (id: string, error: unknown) => void;
}

export class HistoryCache {
  readonly #options: HistoryCacheOptions;
  /** In order of use, least recent first (a Map keeps insertion order; a use re-inserts). */
  readonly #pending = new Map<string, Promise<IdeaHistory>>();
  readonly #opened = new Map<string, IdeaHistory>();
  readonly #closing = new Map<string, Promise<void>>();

  constructor(options: HistoryCacheOptions) {
    this.#options = options;
  }

  get(id: string): Promise<IdeaHistory> {
    const cached = this.#pending.get(id);
    if (cached) {
      this.#pending.delete(id);
      this.#pending.set(id, cached);
      return cached;
    }
    const closing = this.#closing.get(id);
    const pending: Promise<IdeaHistory> = (async () => {
      await closing;
      return this.#options.open(id);
    })();
    void pending.then(
      (history) => {
        if (this.#pending.get(id) !== pending) return;
        this.#opened.set(id, history);
        this.evictIdle();
      },
      () => undefined,
    );
    pending.catch(() => {
      if (this.#pending.get(id) === pending) this.#pending.delete(id);
    });
    this.#pending.set(id, pending);
    this.evictIdle();
    return pending;
  }

  /** Forgets the idea's history (a delete) and resolves with it, if it was opened. */
  async take(id: string): Promise<IdeaHistory | undefined> {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    this.#opened.delete(id);
    return pending?.catch(() => undefined);
  }

  async all(): Promise<IdeaHistory[]> {
    const settled = await Promise.allSettled([...this.#pending.values()]);
    return settled.flatMap((item) => (item.status === 'fulfilled' ? [item.value] : []));
  }

  /**
   * Closes every open history and waits for the closes already under way (evictions), so nothing is still being
   * written when it resolves (a shutdown, a test removing the folder).
   */
  async closeAll(): Promise<void> {
    const opened = await this.all();
    await Promise.allSettled([...opened.map((history) => history.close()), ...this.#closing.values()]);
  }

  get openCount(): number {
    return this.#pending.size;
  }

  /** Closes idle histories, least recently used first, until at most `maxIdle` idle ones are open. */
  evictIdle(): void {
    const idle = [...this.#opened].filter(
      ([id, history]) => history.isIdle && !this.#options.isRunning(id) && this.#pending.has(id),
    );
    const order = [...this.#pending.keys()];
    idle.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
    for (const [id, history] of idle.slice(0, Math.max(0, idle.length - (this.#options.maxIdle ?? 32)))) {
      this.#pending.delete(id);
      this.#opened.delete(id);
      const closing = history
        .close()
        .catch((error: unknown) => this.#options.onCloseError?.(id, error))
        .finally(() => {
          if (this.#closing.get(id) === closing) this.#closing.delete(id);
        });
      this.#closing.set(id, closing);
    }
  }
}
