import type { RelayEvent } from '@catalyst/protocol';
import type { Logger } from 'pino';
import { IdeaHistory } from './event-history.ts';
import type { IdeaStore } from './idea-store.ts';
import { HistoryCache } from './history-cache.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import { settleOrphanedRun, type TakeUp } from '../runs/orphaned-runs.ts';

export interface IdeaHistoriesOptions {
  hosts: HostRegistry;
  logger: Logger;
  /** The host holding the idea (the service's lookup, which also says when there is no such idea). */
  hostOf: (id: string) => Promise<string>;
  isRunning: (id: string) => boolean;
  /** A run an earlier Catalyst left going, found as its history opens: the service takes it up if it can. */
  takeUp: (id: string, history: IdeaHistory) => TakeUp;
  /** Histories kept open with no subscriber and no run (history-cache.ts). */
  maxIdle?: number | undefined;
  /** Every idea's new events, as they are shown (push notifications, issue 29). */
  onEvent?: ((ideaId: string, event: RelayEvent) => void) | undefined;
}

/**
 * The service's event histories, by idea: opened on first use and closed when idle (history-cache.ts). Opening one
 * takes up, or ends, a run a killed Catalyst left open (orphaned-runs.ts); if that fails, the history is still served, and the
 * idea's next run must end it first (`forRun`) or does not start.
 */
export class IdeaHistories {
  readonly #options: IdeaHistoriesOptions;
  readonly #cache: HistoryCache;
  /** Ideas whose run left open by a killed Catalyst could not be ended when their history opened. */
  readonly #orphansLeftOpen = new Set<string>();

  constructor(options: IdeaHistoriesOptions) {
    this.#options = options;
    this.#cache = new HistoryCache({
      open: (id) => this.#open(id),
      isRunning: options.isRunning,
      ...(options.maxIdle === undefined ? {} : { maxIdle: options.maxIdle }),
      onCloseError: (id, error) => {
        options.logger.error({ err: error, ideaId: id }, 'could not close an event history');
      },
    });
  }

  get(id: string): Promise<IdeaHistory> {
    return this.#cache.get(id);
  }

  /** The history a run about to start appends to; rejects when a run left open still cannot be ended. */
  async forRun(id: string): Promise<IdeaHistory> {
    const history = await this.#cache.get(id);
    if (this.#orphansLeftOpen.has(id)) {
      const store = await this.#storeOf(await this.#options.hostOf(id));
      await this.#endOrphanedRun(id, history, store);
    }
    return history;
  }

  /** Forgets the idea's history (a delete) and resolves with it, if it was opened. */
  take(id: string): Promise<IdeaHistory | undefined> {
    return this.#cache.take(id);
  }

  evictIdle(): void {
    this.#cache.evictIdle();
  }

  /** Closes every open history, writing what each still holds, and waits for the closes of evicted ones. */
  closeAll(): Promise<void> {
    return this.#cache.closeAll();
  }

  async #open(id: string): Promise<IdeaHistory> {
    const host = await this.#options.hostOf(id);
    const store = await this.#storeOf(host);
    const history = await IdeaHistory.open({
      files: this.#options.hosts.get(host).host,
      path: store.paths(id).events,
      onError: (error) => {
        this.#options.logger.error({ err: error, ideaId: id }, 'event history problem');
      },
      onShown: (event) => this.#options.onEvent?.(id, event),
    });
    try {
      await this.#endOrphanedRun(id, history, store);
    } catch (error) {
      // The history is still readable; the next launch tries again first.
      this.#orphansLeftOpen.add(id);
      this.#options.logger.error({ err: error, ideaId: id }, 'could not end a run left open');
    }
    return history;
  }

  async #endOrphanedRun(id: string, history: IdeaHistory, store: IdeaStore): Promise<void> {
    await settleOrphanedRun(id, history, store, this.#options.logger, this.#options.takeUp(id, history));
    this.#orphansLeftOpen.delete(id);
  }

  #storeOf(host: string): Promise<IdeaStore> {
    return this.#options.hosts.store(host);
  }
}
