import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  AutopilotView,
  CheckpointDiffResponse,
  CheckpointView,
  FileContentResponse,
  FileListResponse,
  CreateIdeaBody,
  IdeaMeta,
  IdeaView,
  ListeningPort,
  PreviewLinkResponse,
  PreviewLogResponse,
  PreviewView,
  RelayEvent,
  RunMode,
  RunView,
  StartAutopilotBody,
  UpdateIdeaBody,
} from '@catalyst/protocol';
import { ideaOfAutopilotId, ideaOfRunId } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { newIdeaNamingId, readRunView, readRunViews, settledWithin } from '../runs/run-views.ts';
import { checkIdeaId } from '../ideas/idea-store.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { PermissionDecision } from '../core/prompt-answers.ts';
import type { SubmittedAnswers } from '../core/question-handler.ts';
import type { ActiveRun, PromptControls } from '../runs/run-driver.ts';
import type { HostRegistry } from './host-registry.ts';
import type { IdeaIndex } from './idea-index.ts';
import type { HostHealth, IdeaListener, IdeaService, IdeaSubscription } from './idea-service.ts';
import { IdeaHistories } from './idea-histories.ts';
import { hostHolding, locateIdea } from './idea-lookup.ts';
import { LiveSubscribers } from './live-subscribers.ts';
import { launchRun, prewarm, type RunLaunchContext, type RunOverrides } from './run-launch.ts';
import { Autopilots } from './autopilots.ts';
import { DEFAULT_WARM_PER_HOST, WarmSessions } from './warm-sessions.ts';
import { Checkpoints } from './checkpoints.ts';
import { ProjectFiles } from './project-files.ts';
import { DEFAULT_PREVIEW_IDLE_MS, Previews } from './previews.ts';
import { parseProjectPath } from '../core/project-path.ts';
import type { StartPreviewServer } from './preview-server.ts';
import { RUN_REPLACED_MESSAGE, SESSION_GONE_MESSAGE, type ResumableRun } from './orphaned-runs.ts';
import { ideaOfSession } from './session-owners.ts';
import { followedElsewhereMessage, isFollowedElsewhere, isHeardFrom } from './followed-elsewhere.ts';
import { checkHosts } from './host-health.ts';
import { claimRun, deletingClaim, restoringClaim } from './run-claim.ts';
import { applyUpdate, messageOf, toUnavailable } from './idea-meta-changes.ts';
import * as routing from './prompt-routing.ts';

export interface CatalystServiceOptions {
  hosts: HostRegistry;
  index: IdeaIndex;
  logger: Logger;
  inactivityTimeoutMs: number;
  maxRunMs: number;
  /** CATALYST_DETACHED_LIMIT_MS (run-launch.ts). */
  detachedLimitMs?: number;
  /** CATALYST_LEASE_MS (run-launch.ts). */
  leaseMs?: number;
  /** CATALYST_WARM_IDLE_MS: how long a session waits for the idea's next turn. */
  warmIdleMs?: number;
  /** CATALYST_WARM_PER_HOST: how many sessions wait per host (0: none; every turn starts its own process). */
  warmPerHost?: number;
  qa?: routing.QaSettings;
  /** How long a checkpoint's git may take (checkpoints.ts). */
  checkpointTimeoutMs?: number;
  /** Event histories kept open with no subscriber and no run (history-cache.ts). */
  maxIdleHistories?: number;
  /** Previews (issue 14): where their servers listen, when they stop unused, what Catalyst's token is. */
  previews: {
    bind: string;
    idleMs?: number;
    isCatalystToken: (candidate: string) => boolean;
    /** Starts a preview's own HTTP server (server/preview-proxy.ts): the service starts none itself. */
    startServer: StartPreviewServer;
  };
}

/**
 * The service: ideas on their hosts, one run per idea, every event into the idea's history and out to subscribers;
 * live-only frames (streaming text) out to subscribers alone.
 */
export class CatalystService implements IdeaService {
  readonly #options: CatalystServiceOptions;
  readonly #histories: IdeaHistories;
  readonly #runs = new Map<string, ActiveRun>();
  readonly #live = new LiveSubscribers();
  readonly #launching: RunLaunchContext;
  readonly #warm: WarmSessions;
  #isStopping = false;
  readonly #prewarming = new Set<string>();
  /** Sessions another live Catalyst follows (followed-elsewhere.ts): never taken up, stopped or ended here. */
  readonly #followedElsewhere = new Set<string>();
  /** Runs this Catalyst started, until they end: their view before their run:started reaches the history. */
  readonly #starting = new Map<string, RunView>();
  readonly #autopilots: Autopilots;
  readonly #checkpoints: Checkpoints;
  readonly #files: ProjectFiles;
  readonly #previews: Previews;

  constructor(options: CatalystServiceOptions) {
    this.#options = options;
    this.#histories = new IdeaHistories({
      hosts: options.hosts,
      logger: options.logger,
      hostOf: async (id) => (await this.#locate(id)).host,
      // An autopilot between two steps keeps its history open too: it writes the next step's events.
      isRunning: (id) => this.#runs.has(id) || this.#autopilots.runningOn(id) !== undefined,
      takeUp: (id, history) => (run) => this.#takeUp(id, history, run),
      maxIdle: options.maxIdleHistories,
    });
    this.#autopilots = new Autopilots({
      launch: (id, mode, message, overrides) => this.#launch(id, mode, message, overrides),
      history: (id) => this.#history(id),
      isRunning: (id) => this.#runs.has(id),
      activeRun: (id) => this.#runs.get(id),
      mark: async (id, autopilotId) => {
        const store = await this.#store((await this.#locate(id)).host);
        await store.update(id, (meta) => {
          const { autopilotId: _running, ...rest } = meta;
          return autopilotId === undefined ? rest : { ...rest, autopilotId };
        });
      },
      logger: options.logger,
    });
    this.#warm = new WarmSessions({
      perHost: options.warmPerHost ?? DEFAULT_WARM_PER_HOST,
      maxTurnMs: options.maxRunMs,
      logger: options.logger,
    });
    this.#checkpoints = new Checkpoints({
      hosts: options.hosts,
      logger: options.logger,
      locate: (id) => this.#locate(id),
      ...(options.checkpointTimeoutMs === undefined ? {} : { timeoutMs: options.checkpointTimeoutMs }),
    });
    this.#files = new ProjectFiles({
      hosts: options.hosts,
      locate: (id) => this.#locate(id),
      checkpoints: this.#checkpoints,
    });
    this.#previews = new Previews({
      hosts: options.hosts,
      logger: options.logger,
      locate: (id) => this.#locate(id),
      runTagOf: (id) => this.#runs.get(id)?.sessionId,
      bind: options.previews.bind,
      idleMs: options.previews.idleMs ?? DEFAULT_PREVIEW_IDLE_MS,
      isCatalystToken: options.previews.isCatalystToken,
      startServer: options.previews.startServer,
    });
    this.#launching = {
      options,
      warm: this.#warm,
      checkpoints: this.#checkpoints,
      histories: this.#histories,
      live: this.#live,
      locate: (id) => this.#locate(id),
      release: (id) => {
        this.#runs.delete(id);
        this.#histories.evictIdle();
      },
    };
  }

  async listIdeas(): Promise<IdeaView[]> {
    const perHost = await Promise.all(
      this.#options.hosts.all().map((registered) => this.#listHost(registered.name)),
    );
    return perHost.flat().sort((a, b) => (b.meta?.updatedAt ?? '').localeCompare(a.meta?.updatedAt ?? ''));
  }

  async getIdea(id: string): Promise<IdeaView> {
    const { host, meta } = await this.#locate(id);
    return { ...this.#view(id, host, meta), lastSeq: (await this.#history(id)).newestEventSeq };
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
    // Not locateIdea: a folder whose meta.json is missing or corrupt is listed, and must be deletable (issue 16, item 8).
    const host = await hostHolding(this.#options, id);
    if (this.#runs.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'Stop the running task before deleting the idea.');
    // Marked before the first await: a run started meanwhile would work in a folder about to vanish.
    this.#runs.set(id, deletingClaim);
    try {
      // Its waiting claude and its preview first: nothing of the idea may run in a folder about to vanish.
      await this.#warm.stop(id);
      await this.#previews.forget(id);
      const history = this.#histories.take(id);
      this.#live.drop(id);
      await (await history)?.close();
      const { leftOver } = await (await this.#store(host)).delete(id);
      // The idea is deleted (out of the listing); its files wait in the trash for the next delete or start-up.
      if (leftOver !== undefined)
        this.#options.logger.warn(
          { err: leftOver, ideaId: id, host },
          'a deleted idea left files in the trash',
        );
      await this.#options.index.delete(id);
    } finally {
      this.#runs.delete(id);
    }
  }

  async history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]> {
    await this.#locate(id);
    return (await this.#history(id)).since(sinceSeq, limit);
  }

  async lastSeq(id: string): Promise<number> {
    await this.#locate(id);
    return (await this.#history(id)).lastSeq;
  }

  async subscribe(id: string, sinceSeq: number, listener: IdeaListener): Promise<IdeaSubscription> {
    await this.#locate(id);
    const { lastSeq, unsubscribe } = await (await this.#history(id)).subscribe(sinceSeq, listener);
    // Joined in the same tick as the history's live events: from here on both arrive in stdout order.
    const leaveLive = this.#live.add(id, listener);
    const pending = routing.pendingOf(this.#runs.get(id)?.prompts);
    if (!this.#runs.has(id) && !this.#isStopping) this.#prewarm(id);
    return {
      lastSeq,
      running: this.#runs.has(id),
      pending,
      unsubscribe: () => {
        unsubscribe();
        leaveLive();
        this.#histories.evictIdle();
      },
    };
  }

  async startRun(
    id: string,
    mode: RunMode,
    message: string,
    options: { maxBudgetUsd?: number | undefined } = {},
  ): Promise<{ runId: string }> {
    const autopilotId = this.#autopilots.runningOn(id);
    if (autopilotId !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        `An autopilot (${autopilotId}) is running on this idea; cancel it or wait for it to end.`,
      );
    }
    const { maxBudgetUsd } = options;
    const { runId } = await this.#launch(
      id,
      mode,
      message,
      // A cap of its own: the process started under it serves this run only (its key names a new one).
      maxBudgetUsd === undefined
        ? undefined
        : { budgetCap: { key: randomUUID(), remainingUsd: maxBudgetUsd } },
    );
    return { runId };
  }

  /** Read through a call: shutdown may begin while a caller awaits. */
  #hasBegunStopping(): boolean {
    return this.#isStopping;
  }

  /** Starts a run (a person's, or an autopilot's step with its overrides); the run once it is launched. */
  async #launch(id: string, mode: RunMode, message: string, overrides?: RunOverrides): Promise<ActiveRun> {
    if (this.#isStopping) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    // Opening the history first takes up a run an earlier Catalyst left going: then this idea is busy.
    if (!this.#runs.has(id)) await this.#history(id);
    // Shutdown may have begun meanwhile: a run it did not see would be neither let go nor cancelled.
    if (this.#hasBegunStopping()) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    const busy = this.#runs.get(id);
    if (busy !== undefined) {
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea already has a running task.', {
        details: ideaOfRunId(busy.runId) === undefined ? {} : { runId: busy.runId },
      });
    }
    const runId = newIdeaNamingId('run', id);
    const startedAt = new Date().toISOString();
    this.#starting.set(runId, { id: runId, ideaId: id, mode, message, state: 'running', startedAt });
    const launching = launchRun(this.#launching, { id, runId, mode, message, overrides });
    const claim = claimRun(runId, launching);
    void claim.ended.finally(() => this.#starting.delete(runId));
    this.#runs.set(id, claim);
    try {
      claim.adopt(await launching);
      return claim;
    } catch (error) {
      this.#runs.delete(id);
      throw error;
    }
  }

  async getRun(runId: string, waitMs = 0): Promise<RunView> {
    const id = ideaOfRunId(runId);
    if (id === undefined) throw runNotFound(runId);
    const active = this.#runs.get(id);
    if (waitMs > 0 && active?.runId === runId) await settledWithin(active.ended, waitMs);
    let history: IdeaHistory;
    try {
      history = await this.#history(id);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'IDEA_NOT_FOUND') throw runNotFound(runId);
      throw error;
    }
    const view = (await readRunView(history, runId)) ?? this.#starting.get(runId);
    if (view === undefined) throw runNotFound(runId);
    return view;
  }

  async listRuns(id: string, limit: number): Promise<RunView[]> {
    checkIdeaId(id);
    const views = await readRunViews(await this.#history(id), limit);
    const starting = [...this.#starting.values()].filter(
      (view) => view.ideaId === id && !views.some((known) => known.id === view.id),
    );
    return [...starting, ...views].slice(0, limit);
  }

  async cancelRunById(runId: string): Promise<RunView> {
    const id = ideaOfRunId(runId);
    if (id === undefined) throw runNotFound(runId);
    const active = this.#runs.get(id);
    if (active?.runId === runId) {
      active.cancel();
      return this.getRun(runId);
    }
    const view = await this.getRun(runId);
    throw new CatalystError(
      'NO_RUN',
      view.state === 'running'
        ? 'This run is not running in this Catalyst.'
        : `This run has ended already (${view.state}).`,
      { details: { runId } },
    );
  }

  async startAutopilot(id: string, body: StartAutopilotBody): Promise<AutopilotView> {
    checkIdeaId(id);
    if (this.#isStopping) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    return this.#autopilots.start(id, body);
  }

  latestAutopilot(id: string): Promise<AutopilotView | null> {
    checkIdeaId(id);
    return this.#autopilots.latest(id);
  }

  getAutopilot(autopilotId: string): Promise<AutopilotView> {
    return this.#onAutopilot(autopilotId, (id) => this.#autopilots.get(id, autopilotId));
  }

  cancelAutopilot(autopilotId: string): Promise<AutopilotView> {
    return this.#onAutopilot(autopilotId, (id) => this.#autopilots.cancel(id, autopilotId));
  }

  async #onAutopilot(
    autopilotId: string,
    use: (id: string) => Promise<AutopilotView>,
  ): Promise<AutopilotView> {
    const id = ideaOfAutopilotId(autopilotId);
    const notFound = new CatalystError(
      'AUTOPILOT_NOT_FOUND',
      `There is no autopilot ${autopilotId.slice(0, 100)}.`,
    );
    if (id === undefined) throw notFound;
    try {
      return await use(id);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'IDEA_NOT_FOUND') throw notFound;
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

  async listCheckpoints(id: string): Promise<CheckpointView[]> {
    await this.#locate(id);
    return this.#checkpoints.list(await this.#history(id));
  }

  async checkpointDiff(id: string, commit: string): Promise<CheckpointDiffResponse> {
    await this.#locate(id);
    return this.#checkpoints.diff(id, await this.#history(id), commit);
  }

  async restoreCheckpoint(id: string, commit: string): Promise<CheckpointView> {
    await this.#locate(id);
    // The history first: opening it takes up a run an earlier Catalyst left going, which makes the idea busy.
    const history = await this.#history(id);
    const autopilotId = this.#autopilots.runningOn(id);
    if (autopilotId !== undefined || this.#runs.has(id)) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'A run is going on in this idea: restore once it has ended, or cancel it first.',
      );
    }
    // Held like a run until the restore is done: a run started meanwhile would build on files being replaced.
    this.#runs.set(id, restoringClaim);
    try {
      const restored = await this.#checkpoints.restore(id, history, commit);
      // In the background: a dev server's stop and start take seconds; the preview's state tells how it goes.
      void this.#previews.restartIfRunning(id);
      return restored;
    } finally {
      this.#runs.delete(id);
    }
  }

  preview(id: string, requestHost?: string): Promise<PreviewView> {
    return this.#previews.view(id, requestHost);
  }

  startPreview(id: string, requestHost?: string): Promise<PreviewView> {
    return this.#previews.start(id, requestHost);
  }

  async stopPreview(id: string, requestHost?: string): Promise<PreviewView> {
    await this.#locate(id);
    await this.#previews.stop(id);
    return this.#previews.view(id, requestHost);
  }

  async previewLog(id: string): Promise<PreviewLogResponse> {
    await this.#locate(id);
    return this.#previews.log(id);
  }

  listeningPorts(id: string): Promise<ListeningPort[]> {
    return this.#previews.ports(id);
  }

  previewPortLink(id: string, port: number, requestHost?: string): Promise<PreviewLinkResponse> {
    return this.#previews.portLink(id, port, requestHost);
  }

  listFiles(id: string, path: string): Promise<FileListResponse> {
    return this.#files.list(id, path);
  }

  async fileContent(id: string, path: string, at?: string): Promise<FileContentResponse> {
    await this.#locate(id);
    const history = at === undefined ? undefined : await this.#history(id);
    return this.#files.content(
      id,
      path,
      history === undefined || at === undefined ? undefined : { commit: at, history },
    );
  }

  async fileHistory(id: string, path: string): Promise<CheckpointView[]> {
    const parsed = parseProjectPath(path);
    if (!parsed.ok) throw new CatalystError('INVALID_PATH', `That path cannot be shown: ${parsed.problem}.`);
    const checkpoints = await this.listCheckpoints(id);
    return checkpoints.filter((checkpoint) =>
      checkpoint.files.some((file) => file.path === parsed.path || file.from === parsed.path),
    );
  }

  hosts(): Promise<HostHealth[]> {
    return checkHosts(this.#options.hosts);
  }

  /**
   * Stops accepting runs and flushes every history. The running runs are cancelled, or, with `keepRuns` (a
   * restart, an update), let go of: Claude goes on in its session on the host and the next Catalyst takes it up.
   */
  async shutdown(options: { keepRuns?: boolean } = {}): Promise<void> {
    this.#isStopping = true;
    const autopilots = this.#autopilots.stop({ keepRuns: options.keepRuns === true });
    const runs = [...this.#runs.values()];
    for (const run of runs) {
      if (options.keepRuns === true && run.detach !== undefined) run.detach();
      else run.cancel();
    }
    await Promise.allSettled(runs.map((run) => run.ended));
    await autopilots;
    await this.#warm.endAll();
    await this.#previews.stopAll();
    await this.#histories.closeAll();
  }

  /**
   * In the background (run-launch.ts, prewarm); not when warm sessions are off, or one is on its way. A turn sent
   * meanwhile waits for it (warm-sessions.ts) instead of starting a second claude.
   */
  #prewarm(id: string): void {
    if (this.#options.warmPerHost === 0 || this.#prewarming.has(id)) return;
    this.#prewarming.add(id);
    const isGoing = () => this.#isStopping || this.#runs.get(id) === deletingClaim;
    const pending = prewarm(this.#launching, id, isGoing)
      .catch((error: unknown) => {
        this.#options.logger.warn({ ideaId: id, err: error }, 'could not pre-warm a session');
      })
      .finally(() => this.#prewarming.delete(id));
    this.#warm.starting(id, pending);
  }

  /**
   * At start, once the runs are taken up: goes on with the autopilots an earlier Catalyst left running (their
   * ideas' meta.json names them). A host that cannot be reached is logged and skipped. Never rejects.
   */
  async resumeAutopilots(): Promise<void> {
    await Promise.all(
      this.#options.hosts.all().map(async ({ name }) => {
        try {
          const listing = await (await this.#store(name)).list();
          for (const { id, meta } of listing) {
            if (meta?.autopilotId === undefined) continue;
            await this.#autopilots.resume(id, meta.autopilotId).catch((error: unknown) => {
              this.#options.logger.error({ ideaId: id, err: error }, 'could not go on with an autopilot');
            });
          }
        } catch (error) {
          this.#options.logger.warn(
            { host: name, err: error },
            'could not look for autopilots to go on with',
          );
        }
      }),
    );
  }

  /**
   * At start: takes up the runs an earlier Catalyst left going in sessions on the hosts (opening an idea's history
   * does it), then stops and removes the sessions nobody takes up (warm ones, ones whose run already ended).
   * A host that cannot be reached is logged and skipped. Never rejects.
   */
  async takeUpSessions(): Promise<void> {
    await Promise.all(
      this.#options.hosts.all().map(async ({ name, host }) => {
        try {
          const sessions = await host.sessions.list();
          const ideas = new Set(sessions.flatMap((session) => ideaOfSession(session.sessionId) ?? []));
          for (const id of ideas) {
            try {
              await this.#history(id);
            } catch (error) {
              this.#options.logger.warn(
                { host: name, ideaId: id, err: error },
                'could not take up a session',
              );
            }
          }
          const inUse = new Set([
            ...[...this.#runs.values()].flatMap((run) => run.sessionId ?? []),
            ...this.#warm.sessionIds(),
          ]);
          const others = sessions.filter((session) => !inUse.has(session.sessionId) && isHeardFrom(session));
          if (others.length > 0)
            this.#options.logger.warn(
              { host: name, sessions: others.map((session) => session.sessionId) },
              'another Catalyst follows sessions on this host: left alone (two Catalysts on one ideas folder are not supported)',
            );
          const unused = sessions.filter((session) => !inUse.has(session.sessionId) && !isHeardFrom(session));
          for (const session of unused) {
            if (session.isAlive) await host.sessions.stop(session.sessionId);
            await host.sessions.remove(session.sessionId);
          }
          if (unused.length > 0)
            this.#options.logger.info(
              { host: name, sessions: unused.length },
              'removed sessions nobody follows',
            );
        } catch (error) {
          this.#options.logger.warn({ host: name, err: error }, 'the start-up look at the sessions failed');
        }
      }),
    );
  }

  /** The service's side of orphaned-runs.ts: the run is taken up when its session is still on the host. */
  async #takeUp(
    id: string,
    history: IdeaHistory,
    run: ResumableRun,
  ): Promise<{ isTakenUp: true } | { isTakenUp: false; why?: string }> {
    if (this.#isStopping) return { isTakenUp: false };
    const { host } = await this.#locate(id);
    const { sessions } = this.#options.hosts.get(host).host;
    const sessionId = run.point.session.id;
    const session = (await sessions.list()).find((info) => info.sessionId === sessionId);
    // Neither taken up nor ended: the other Catalyst records the run. Its history here would be out of date.
    if (
      this.#followedElsewhere.has(sessionId) ||
      (session !== undefined && (await isFollowedElsewhere(sessions, session)))
    ) {
      this.#followedElsewhere.add(sessionId);
      throw new CatalystError('SESSION_BUSY', followedElsewhereMessage(host));
    }
    if (session === undefined) return { isTakenUp: false, why: SESSION_GONE_MESSAGE };
    if (this.#runs.has(id)) {
      // A new run of the idea is starting, and this one could not be taken up when its history opened: its claude
      // must not go on unseen.
      await sessions.stop(sessionId);
      return { isTakenUp: false, why: RUN_REPLACED_MESSAGE };
    }
    const { runId, mode, message } = run;
    const launching = launchRun(this.#launching, { id, runId, mode, message }, { history, point: run.point });
    const claim = claimRun(runId, launching);
    this.#runs.set(id, claim);
    try {
      claim.adopt(await launching);
      return { isTakenUp: true };
    } catch (error) {
      this.#runs.delete(id);
      throw error;
    }
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
        ...(entry.isBroken === true ? { broken: true as const } : {}),
      }));
    } catch (error) {
      const reason = `Host ${name} is unavailable: ${messageOf(error)}`;
      return this.#options.index
        .idsOn(name)
        .map((id) => ({ id, host: name, available: false, running: false, error: reason }));
    }
  }

  #locate(id: string): Promise<{ host: string; meta: IdeaMeta }> {
    return locateIdea(this.#options, id);
  }

  #store(host: string) {
    return this.#options.hosts.store(host);
  }

  #history(id: string): Promise<IdeaHistory> {
    return this.#histories.get(id);
  }

  #view(id: string, host: string, meta: IdeaMeta): IdeaView {
    return { id, host, available: true, running: this.#runs.has(id), meta };
  }
}

function runNotFound(runId: string): CatalystError {
  return new CatalystError('RUN_NOT_FOUND', `There is no run ${runId.slice(0, 100)} in Catalyst.`);
}
