import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  CreateIdeaBody,
  IdeaMeta,
  IdeaStatus,
  IdeaView,
  RelayEvent,
  RelayEventDraft,
  RunMode,
  UpdateIdeaBody,
} from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { RunEnding } from '../core/run-ending.ts';
import { checkIdeaId } from '../ideas/idea-store.ts';
import { IdeaHistory } from '../ideas/event-history.ts';
import { startRunDriver, type ActiveRun } from '../runs/run-driver.ts';
import type { HostRegistry } from './host-registry.ts';
import type { IdeaIndex } from './idea-index.ts';
import type { HostHealth, IdeaService, IdeaSubscription } from './idea-service.ts';
import { statusAfterRun, statusAtStart } from './idea-status.ts';

export interface CatalystServiceOptions {
  hosts: HostRegistry;
  index: IdeaIndex;
  logger: Logger;
  inactivityTimeoutMs: number;
  maxRunMs: number;
}

/** The service: ideas on their hosts, one run per idea, every event into the idea's history and out to subscribers. */
export class CatalystService implements IdeaService {
  readonly #options: CatalystServiceOptions;
  readonly #histories = new Map<string, Promise<IdeaHistory>>();
  readonly #runs = new Map<string, ActiveRun>();
  #isStopping = false;

  constructor(options: CatalystServiceOptions) {
    this.#options = options;
  }

  async listIdeas(): Promise<IdeaView[]> {
    const perHost = await Promise.all(
      this.#options.hosts.all().map((registered) => this.#listHost(registered.name)),
    );
    return perHost.flat().sort((a, b) => (b.meta?.updatedAt ?? '').localeCompare(a.meta?.updatedAt ?? ''));
  }

  async getIdea(id: string): Promise<IdeaView> {
    const { host, meta } = await this.#locate(id);
    return this.#view(id, host, meta);
  }

  async createIdea(body: CreateIdeaBody): Promise<IdeaView> {
    const host = body.host ?? this.#options.hosts.defaultName;
    const store = await this.#store(host);
    const meta = await store.create({ title: body.title, description: body.description });
    await this.#options.index.set(meta.id, host);
    return this.#view(meta.id, host, meta);
  }

  async updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView> {
    const { host } = await this.#locate(id);
    const store = await this.#store(host);
    const meta = await store.update(id, (current) => ({
      ...current,
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.description === undefined ? {} : { description: body.description }),
    }));
    return this.#view(id, host, meta);
  }

  async deleteIdea(id: string): Promise<void> {
    const { host } = await this.#locate(id);
    if (this.#runs.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'Stop the running task before deleting the idea.');
    const history = this.#histories.get(id);
    this.#histories.delete(id);
    await (await history)?.close();
    await (await this.#store(host)).delete(id);
    await this.#options.index.delete(id);
  }

  async history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]> {
    await this.#locate(id);
    return (await this.#history(id)).since(sinceSeq, limit);
  }

  async subscribe(
    id: string,
    sinceSeq: number,
    listener: (event: RelayEvent) => void,
  ): Promise<IdeaSubscription> {
    await this.#locate(id);
    const subscription = await (await this.#history(id)).subscribe(sinceSeq, listener);
    return { ...subscription, running: this.#runs.has(id) };
  }

  async startRun(id: string, mode: RunMode, message: string): Promise<{ runId: string }> {
    if (this.#isStopping) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    if (this.#runs.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea already has a running task.');
    const runId = `run-${randomUUID()}`;
    const launching = this.#launch(id, runId, mode, message);
    // Claimed before the first await: a second start for the same idea is refused, never a second claude. A
    // cancel or a shutdown during the launch reaches the run once it exists.
    const claim: ActiveRun = {
      runId,
      ended: launching.then(
        (run) => run.ended,
        (): RunEnding => ({ outcome: 'failed' }),
      ),
      cancel: () =>
        void launching.then(
          (run) => {
            run.cancel();
          },
          () => undefined,
        ),
    };
    this.#runs.set(id, claim);
    try {
      await launching;
      return { runId };
    } catch (error) {
      this.#runs.delete(id);
      throw error;
    }
  }

  cancelRun(id: string): Promise<void> {
    checkIdeaId(id);
    const run = this.#runs.get(id);
    if (!run) return Promise.reject(new CatalystError('NO_RUN', 'This idea has no running task.'));
    run.cancel();
    return Promise.resolve();
  }

  async hosts(): Promise<HostHealth[]> {
    return Promise.all(
      this.#options.hosts.all().map(async (registered) => {
        const base = { name: registered.name, label: registered.host.label, isDefault: registered.isDefault };
        try {
          return { ...base, reachable: true, preflight: await registered.host.preflight() };
        } catch (error) {
          return { ...base, reachable: false, error: messageOf(error) };
        }
      }),
    );
  }

  /** Stops accepting runs, cancels the running ones, waits for them to end, and flushes every history. */
  async shutdown(): Promise<void> {
    this.#isStopping = true;
    const runs = [...this.#runs.values()];
    for (const run of runs) run.cancel();
    await Promise.allSettled(runs.map((run) => run.ended));
    const histories = await Promise.allSettled([...this.#histories.values()]);
    const opened = histories.flatMap((h) => (h.status === 'fulfilled' ? [h.value] : []));
    await Promise.allSettled(opened.map((history) => history.close()));
  }

  async #launch(id: string, runId: string, mode: RunMode, message: string): Promise<ActiveRun> {
    const { host, meta } = await this.#locate(id);
    const store = await this.#store(host);
    const history = await this.#history(id);
    const registered = this.#options.hosts.get(host);
    const claude = await this.#options.hosts.claude(host);
    await this.#setStatus({ id, host, runId, status: statusAtStart(meta.status, mode) }, history);
    const emit = (draft: RelayEventDraft): RelayEvent => history.append(draft);
    this.#options.logger.info({ ideaId: id, runId, mode, host }, 'run started');
    return startRunDriver({
      host: registered.host,
      ideaId: id,
      runId,
      mode,
      message,
      cwd: store.paths(id).project,
      claudePath: claude.claudePath,
      env: { PATH: claude.path },
      ...(meta.sessionId === undefined ? {} : { sessionId: meta.sessionId }),
      inactivityTimeoutMs: this.#options.inactivityTimeoutMs,
      maxDurationMs: this.#options.maxRunMs,
      emit,
      onSession: async (sessionId) => {
        await store.update(id, (current) => ({ ...current, sessionId }));
      },
      onFinish: (ending) => this.#recordEnding({ id, host, runId, mode }, ending),
      logger: this.#options.logger,
    });
  }

  async #recordEnding(
    run: { id: string; host: string; runId: string; mode: RunMode },
    ending: RunEnding,
  ): Promise<void> {
    const { id, host, runId, mode } = run;
    try {
      const store = await this.#store(host);
      const meta = await store.update(id, (current) => addTotals(current, mode, ending));
      const status = statusAfterRun(meta.status, mode, ending.outcome);
      await this.#setStatus({ id, host, runId, status }, await this.#history(id));
    } finally {
      this.#runs.delete(id);
    }
    const { outcome, result } = ending;
    this.#options.logger.info(
      { ideaId: id, runId, mode, outcome, costUsd: result?.costUsd, durationMs: result?.durationMs },
      'run ended',
    );
  }

  async #setStatus(
    change: { id: string; host: string; runId: string; status: IdeaStatus },
    history: IdeaHistory,
  ): Promise<void> {
    const { id, runId, status } = change;
    const store = await this.#store(change.host);
    const before = (await store.get(id)).status;
    await store.update(id, (current) => ({ ...current, status }));
    if (before !== status) history.append({ type: 'idea:status', ideaId: id, runId, status });
  }

  async #listHost(name: string): Promise<IdeaView[]> {
    try {
      const listing = await (await this.#store(name)).list();
      await this.#options.index.setHostIdeas(
        name,
        listing.map((entry) => entry.id),
      );
      return listing.map((entry) => ({
        id: entry.id,
        host: name,
        available: entry.meta !== undefined,
        running: this.#runs.has(entry.id),
        ...(entry.meta ? { meta: entry.meta } : {}),
        ...(entry.error === undefined ? {} : { error: entry.error }),
      }));
    } catch (error) {
      const reason = `Host ${name} is unavailable: ${messageOf(error)}`;
      return this.#options.index
        .idsOn(name)
        .map((id) => ({ id, host: name, available: false, running: false, error: reason }));
    }
  }

  /** Finds an idea's host (the index first, then every host) and reads its meta.json. */
  async #locate(id: string): Promise<{ host: string; meta: IdeaMeta }> {
    checkIdeaId(id);
    const known = this.#options.index.hostOf(id);
    const candidates = known === undefined ? this.#options.hosts.all().map((h) => h.name) : [known];
    for (const host of candidates) {
      try {
        return { host, meta: await (await this.#store(host)).get(id) };
      } catch (error) {
        if (!(isCatalystError(error) && error.code === 'IDEA_NOT_FOUND') || known !== undefined)
          throw toUnavailable(error, host);
      }
    }
    throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`);
  }

  #store(host: string) {
    return this.#options.hosts.store(host);
  }

  #history(id: string): Promise<IdeaHistory> {
    const cached = this.#histories.get(id);
    if (cached) return cached;
    const pending = (async () => {
      const { host } = await this.#locate(id);
      const path = (await this.#store(host)).paths(id).events;
      const files = this.#options.hosts.get(host).host;
      return IdeaHistory.open({
        files,
        path,
        onError: (error) => {
          this.#options.logger.error({ err: error, ideaId: id }, 'event history problem');
        },
      });
    })();
    pending.catch(() => this.#histories.delete(id));
    this.#histories.set(id, pending);
    return pending;
  }

  #view(id: string, host: string, meta: IdeaMeta): IdeaView {
    return { id, host, available: true, running: this.#runs.has(id), meta };
  }
}

function addTotals(meta: IdeaMeta, mode: RunMode, ending: RunEnding): IdeaMeta {
  const result = ending.result;
  return {
    ...meta,
    lastMode: mode,
    ...(result?.sessionId ? { sessionId: result.sessionId } : {}),
    totals: {
      ...meta.totals,
      runs: meta.totals.runs + 1,
      // Each run is its own CLI process, so its result's cumulative cost is this run's cost (protocol §3.4).
      costUsd: meta.totals.costUsd + (result?.costUsd ?? 0),
      turns: meta.totals.turns + (result?.numTurns ?? 0),
    },
  };
}

function toUnavailable(error: unknown, host: string): unknown {
  if (isCatalystError(error)) {
    const isIdeaLevel = ['IDEA_NOT_FOUND', 'INVALID_ARGUMENT', 'FILE_ERROR'].includes(error.code);
    return isIdeaLevel
      ? error
      : new CatalystError('HOST_UNAVAILABLE', `Host ${host} is unavailable: ${error.message}`, {
          cause: error,
        });
  }
  return new CatalystError('HOST_UNAVAILABLE', `Host ${host} is unavailable: ${messageOf(error)}`, {
    cause: error,
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
