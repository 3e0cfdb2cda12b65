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
import { checkIdeaId, type IdeaStore } from '../ideas/idea-store.ts';
import { IdeaHistory } from '../ideas/event-history.ts';
import type { PermissionDecision } from '../core/prompt-answers.ts';
import type { SubmittedAnswers } from '../core/question-handler.ts';
import { startRunDriver, type ActiveRun, type PromptControls } from '../runs/run-driver.ts';
import type { HostRegistry } from './host-registry.ts';
import type { IdeaIndex } from './idea-index.ts';
import type { HostHealth, IdeaListener, IdeaService, IdeaSubscription } from './idea-service.ts';
import { LiveSubscribers } from './live-subscribers.ts';
import { closeOrphanedRun } from './orphaned-runs.ts';
import { checkHosts } from './host-health.ts';
import { claimRun, deletingClaim } from './run-claim.ts';
import { addTotals, applyUpdate, messageOf, toUnavailable } from './idea-meta-changes.ts';
import { statusAfterRun, statusAtStart } from './idea-status.ts';
import * as routing from './prompt-routing.ts';

export interface CatalystServiceOptions {
  hosts: HostRegistry;
  index: IdeaIndex;
  logger: Logger;
  inactivityTimeoutMs: number;
  maxRunMs: number;
  qa?: routing.QaSettings;
}

/**
 * The service: ideas on their hosts, one run per idea, every event into the idea's history and out to subscribers;
 * live-only frames (streaming text) out to subscribers alone.
 */
export class CatalystService implements IdeaService {
  readonly #options: CatalystServiceOptions;
  readonly #histories = new Map<string, Promise<IdeaHistory>>();
  /** Ideas whose run left open by a killed Catalyst could not be ended when their history opened. */
  readonly #orphansLeftOpen = new Set<string>();
  readonly #runs = new Map<string, ActiveRun>();
  readonly #live = new LiveSubscribers();
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
    // HOST_NOT_FOUND for a name not configured; past that, a host that fails is unavailable, in its own words.
    const host = this.#options.hosts.get(body.host ?? this.#options.hosts.defaultName).name;
    let meta: IdeaMeta;
    try {
      const store = await this.#store(host);
      meta = await store.create({ title: body.title, description: body.description });
    } catch (error) {
      throw toUnavailable(error, host);
    }
    await this.#options.index.set(meta.id, host);
    return this.#view(meta.id, host, meta);
  }

  async updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView> {
    const { host } = await this.#locate(id);
    const store = await this.#store(host);
    const meta = await store.update(id, (current) => applyUpdate(current, body));
    return this.#view(id, host, meta);
  }

  async deleteIdea(id: string): Promise<void> {
    const { host } = await this.#locate(id);
    if (this.#runs.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'Stop the running task before deleting the idea.');
    // Marked before the first await: a run started meanwhile would work in a folder about to vanish.
    this.#runs.set(id, deletingClaim);
    try {
      const history = this.#histories.get(id);
      this.#histories.delete(id);
      this.#live.drop(id);
      await (await history)?.close();
      await (await this.#store(host)).delete(id);
      await this.#options.index.delete(id);
    } finally {
      this.#runs.delete(id);
    }
  }

  async history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]> {
    await this.#locate(id);
    return (await this.#history(id)).since(sinceSeq, limit);
  }

  async subscribe(id: string, sinceSeq: number, listener: IdeaListener): Promise<IdeaSubscription> {
    await this.#locate(id);
    const { lastSeq, unsubscribe } = await (await this.#history(id)).subscribe(sinceSeq, listener);
    // Joined in the same tick as the history's live events: from here on both arrive in stdout order.
    const leaveLive = this.#live.add(id, listener);
    const pending = routing.pendingOf(this.#runs.get(id)?.prompts);
    return {
      lastSeq,
      running: this.#runs.has(id),
      pending,
      unsubscribe: () => {
        unsubscribe();
        leaveLive();
      },
    };
  }

  async startRun(id: string, mode: RunMode, message: string): Promise<{ runId: string }> {
    if (this.#isStopping) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    if (this.#runs.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea already has a running task.');
    const runId = `run-${randomUUID()}`;
    const launching = this.#launch(id, runId, mode, message);
    const claim = claimRun(runId, launching);
    this.#runs.set(id, claim);
    try {
      claim.adopt(await launching);
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

  async pendingPrompts(id: string): Promise<RelayEvent[]> {
    await this.#locate(id);
    return routing.pendingOf(this.#runs.get(id)?.prompts);
  }

  async answerQuestion(id: string, questionId: string, answers: SubmittedAnswers): Promise<void> {
    routing.requireQuestion((await this.#prompts(id)).answerQuestion(questionId, answers), questionId);
  }

  async dismissQuestion(id: string, questionId: string): Promise<void> {
    routing.requireQuestion((await this.#prompts(id)).dismissQuestion(questionId), questionId);
  }

  async answerPermission(id: string, requestId: string, decision: PermissionDecision): Promise<void> {
    routing.requirePermission((await this.#prompts(id)).answerPermission(requestId, decision), requestId);
  }

  /** The prompts of the idea's run, or none (answers to them all fail) when it has no run. */
  async #prompts(id: string): Promise<PromptControls> {
    checkIdeaId(id);
    if (!this.#runs.has(id)) await this.#locate(id);
    return this.#runs.get(id)?.prompts ?? routing.NO_PROMPTS;
  }

  hosts(): Promise<HostHealth[]> {
    return checkHosts(this.#options.hosts);
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
    // The history first: opening it ends a run a killed Catalyst left open, which changes the status read next.
    // If that failed when the history opened, it must succeed now, or this run does not start.
    const history = await this.#history(id);
    if (this.#orphansLeftOpen.has(id)) {
      const { host } = await this.#locate(id);
      await this.#endOrphanedRun(id, history, await this.#store(host));
    }
    const { host, meta } = await this.#locate(id);
    const store = await this.#store(host);
    const registered = this.#options.hosts.get(host);
    const claude = await this.#options.hosts.claude(host);
    await this.#setStatus({ id, host, runId, status: statusAtStart(meta.status, mode) }, history);
    this.#options.logger.info({ ideaId: id, runId, mode, host }, 'run started');
    const run: ActiveRun = startRunDriver({
      host: registered.host,
      ideaId: id,
      runId,
      mode,
      message,
      cwd: store.paths(id).project,
      claudePath: claude.claudePath,
      env: { PATH: claude.path },
      ...(meta.sessionId === undefined ? {} : { sessionId: meta.sessionId }),
      recap: routing.sessionRecapFor(meta, history, runId),
      inactivityTimeoutMs: this.#options.inactivityTimeoutMs,
      maxDurationMs: this.#options.maxRunMs,
      ...routing.promptOptionsFor(meta, this.#options.qa ?? routing.DEFAULT_QA, history),
      emit: (draft: RelayEventDraft): RelayEvent => history.append(draft),
      relayLive: (frame) => {
        this.#live.send(id, frame);
      },
      onSession: async (sessionId) => {
        await store.update(id, (current) => ({ ...current, sessionId }));
      },
      onFinish: (ending) => this.#recordEnding({ id, host, runId, mode, prompts: run.prompts }, ending),
      logger: this.#options.logger,
    });
    return run;
  }

  async #recordEnding(
    run: { id: string; host: string; runId: string; mode: RunMode; prompts?: PromptControls | undefined },
    ending: RunEnding,
  ): Promise<void> {
    const { id, host, runId, mode } = run;
    try {
      const store = await this.#store(host);
      const meta = await store.update(id, (current) =>
        addTotals(current, { mode, ending, stats: run.prompts?.stats() }),
      );
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
      const store = await this.#store(host);
      const files = this.#options.hosts.get(host).host;
      const history = await IdeaHistory.open({
        files,
        path: store.paths(id).events,
        onError: (error) => {
          this.#options.logger.error({ err: error, ideaId: id }, 'event history problem');
        },
      });
      try {
        await this.#endOrphanedRun(id, history, store);
      } catch (error) {
        // The history is still readable; the next launch tries again first.
        this.#orphansLeftOpen.add(id);
        this.#options.logger.error({ err: error, ideaId: id }, 'could not end a run left open');
      }
      return history;
    })();
    pending.catch(() => this.#histories.delete(id));
    this.#histories.set(id, pending);
    return pending;
  }

  async #endOrphanedRun(id: string, history: IdeaHistory, store: IdeaStore): Promise<void> {
    await closeOrphanedRun(id, history, store, this.#options.logger);
    this.#orphansLeftOpen.delete(id);
  }

  #view(id: string, host: string, meta: IdeaMeta): IdeaView {
    return { id, host, available: true, running: this.#runs.has(id), meta };
  }
}
