import { IdeaHistory } from './event-history.ts';
import type { IdeaStore } from './idea-store.ts';
import { HistoryCache } from './history-cache.ts';
import { settleOrphanedRun, type TakeUp } from '../runs/orphaned-runs.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * The shared parts a history uses: where the idea is (the service's lookup, which also says when there is no such
 * idea), its owner (a history is kept open while something writes to it), and the options' `maxIdleHistories`
 * (kept open with no subscriber and no run, history-cache.ts) and `onEvent` (every idea's new events, as they are
 * shown: push notifications, issue 29).
 */
export type IdeaHistoriesOptions = Pick<
  ServiceShared,
  'options' | 'hosts' | 'logger' | 'locate' | 'owners'
> & {
  /** A run an earlier Catalyst left going, found as its history opens: the service takes it up if it can. */
  takeUp: (id: string, history: IdeaHistory) => TakeUp;
};

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
      isRunning: (id) => options.owners.of(id).isWriting(),
      ...(options.options.maxIdleHistories === undefined
        ? {}
        : { maxIdle: options.options.maxIdleHistories }),
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
      const store = await this.#storeOf((await this.#options.locate(id)).host);
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
    const host = (await this.#options.locate(id)).host;
    const store = await this.#storeOf(host);
    const history = await IdeaHistory.open({
      files: this.#options.hosts.get(host).host,
      path: store.paths(id).events,
      onError: (error) => {
        this.#options.logger.error({ err: error, ideaId: id }, 'event history problem');
      },
      onShown: (event) => this.#options.options.onEvent?.(id, event),
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
