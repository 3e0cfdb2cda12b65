import { randomUUID } from 'node:crypto';
import type { RelayEvent, RunMode, RunView } from '@catalyst/protocol';
import { ideaOfRunId } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { PermissionDecision } from './core/prompt-answers.ts';
import type { SubmittedAnswers } from './core/question-handler.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { checkIdeaId } from '../ideas/idea-store.ts';
import type { ActiveRun, PromptControls } from './active-run.ts';
import { newIdeaNamingId, readRunView, readRunViews, settledWithin } from './run-views.ts';
import type { ActiveRuns } from './active-runs.ts';
import { followedElsewhereMessage, isFollowedElsewhere } from './followed-elsewhere.ts';
import type { RunsPort } from '../service/ports.ts';
import { RUN_REPLACED_MESSAGE, SESSION_GONE_MESSAGE, type ResumableRun } from './orphaned-runs.ts';
import * as routing from './prompt-routing.ts';
import { claimRun } from './run-claim.ts';
import type { SentMessage } from './idea-owners.ts';
import { Prewarms } from './prewarms.ts';
import { launchRun, type RunLaunchContext, type RunOverrides } from './run-launch.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * The shared parts (the owners: what each idea is doing, a person's run refused while an autopilot runs on it, and
 * its messages' way in; the options' `warmPerHost`: 0, no warm sessions, so nothing is pre-warmed), and the run
 * start path's collaborators (run-launch.ts), whose `release` frees the idea's place in `active`.
 */
export type RunsCapabilityOptions = Pick<ServiceShared, 'options' | 'active' | 'logger' | 'owners'> & {
  launching: RunLaunchContext;
};

/**
 * Runs (RunsPort): starting one per idea, reading them from the history, cancelling them, answering their prompts;
 * and, for the other capabilities, launching an autopilot's step, taking up a run an earlier Catalyst left going
 * in its session, and pre-warming a session for an idea a person opened.
 */
export class RunsCapability implements RunsPort {
  readonly #options: RunsCapabilityOptions;
  readonly #active: ActiveRuns;
  /** Runs this Catalyst started, until they end: their view before their run:started reaches the history. */
  readonly #starting = new Map<string, RunView>();
  readonly #prewarms: Prewarms;
  /** Sessions another live Catalyst follows (followed-elsewhere.ts): never taken up, stopped or ended here. */
  readonly #followedElsewhere = new Set<string>();
  /** The ideas of those sessions: this Catalyst starts no claude of theirs, not even a pre-warmed one. */
  readonly #ideasFollowedElsewhere = new Set<string>();

  constructor(options: RunsCapabilityOptions) {
    this.#options = options;
    this.#active = options.active;
    this.#prewarms = new Prewarms({
      launching: options.launching,
      logger: options.logger,
      warmPerHost: options.options.warmPerHost,
      isBusy: (id) => options.owners.of(id).isBusy() || this.#ideasFollowedElsewhere.has(id),
      // Checked again after each wait: another Catalyst's run found meanwhile (its history opened) stops it too.
      isGoing: (id) =>
        this.#active.isStopping() ||
        options.owners.of(id).isDeleting() ||
        this.#ideasFollowedElsewhere.has(id),
    });
  }

  sendMessage(id: string, mode: RunMode, message: string): Promise<SentMessage> {
    checkIdeaId(id);
    return this.#options.owners.of(id).send(mode, message);
  }

  async startRun(
    id: string,
    mode: RunMode,
    message: string,
    options: { maxBudgetUsd?: number | undefined } = {},
  ): Promise<{ runId: string }> {
    const autopilotId = this.#options.owners.of(id).autopilotOn();
    if (autopilotId !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        `An autopilot (${autopilotId}) is running on this idea; cancel it or wait for it to end.`,
      );
    }
    const { maxBudgetUsd } = options;
    const { runId } = await this.launch(
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

  /** Starts a run (a person's, or an autopilot's step with its overrides); the run once it is launched. */
  async launch(id: string, mode: RunMode, message: string, overrides?: RunOverrides): Promise<ActiveRun> {
    this.#active.refuseWhenStopping();
    // Opening the history first takes up a run an earlier Catalyst left going: then this idea is busy.
    if (!this.#active.has(id)) await this.#history(id);
    // Shutdown may have begun meanwhile: a run it did not see would be neither let go nor cancelled.
    this.#active.refuseWhenStopping();
    this.#active.refuseWhenBusy(id, 'This idea already has a running task.');
    const runId = newIdeaNamingId('run', id);
    const startedAt = new Date().toISOString();
    this.#starting.set(runId, { id: runId, ideaId: id, mode, message, state: 'running', startedAt });
    // The turn after this one: an autopilot's next step, else what the page's composer shows.
    const nextMode = () => overrides?.nextMode ?? this.#prewarms.shownMode(id);
    const launching = launchRun(this.#options.launching, { id, runId, mode, message, overrides, nextMode });
    const claim = claimRun(runId, launching);
    void claim.ended.finally(() => {
      this.#starting.delete(runId);
      this.#prewarms.afterRun(id);
    });
    this.#active.hold(id, claim);
    try {
      claim.adopt(await launching);
      return claim;
    } catch (error) {
      this.#active.release(id);
      throw error;
    }
  }

  async getRun(runId: string, waitMs = 0): Promise<RunView> {
    const id = ideaOfRunId(runId);
    if (id === undefined) throw runNotFound(runId);
    const active = this.#active.get(id);
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
    const active = this.#active.get(id);
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

  cancelRun(id: string): Promise<void> {
    checkIdeaId(id);
    const run = this.#active.get(id);
    if (!run) return Promise.reject(new CatalystError('NO_RUN', 'This idea has no running task.'));
    run.cancel();
    return Promise.resolve();
  }

  async pendingPrompts(id: string): Promise<RelayEvent[]> {
    await this.#options.launching.locate(id);
    return routing.pendingOf(this.#active.get(id)?.prompts);
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
    if (!this.#active.has(id)) await this.#options.launching.locate(id);
    return this.#active.get(id)?.prompts ?? routing.NO_PROMPTS;
  }

  /** Pre-warms a claude for the idea's next turn (prewarms.ts): a person opened it. */
  prewarm(id: string): void {
    this.#prewarms.prewarm(id);
  }

  showMode(id: string, mode: RunMode): Promise<void> {
    return this.#prewarms.show(id, mode);
  }

  /** The idea is gone: what its page showed is forgotten. */
  forget(id: string): void {
    this.#prewarms.forget(id);
    this.#ideasFollowedElsewhere.delete(id);
  }

  /** The history's side of orphaned-runs.ts: the run is taken up when its session is still on the host. */
  async takeUp(
    id: string,
    history: IdeaHistory,
    run: ResumableRun,
  ): Promise<{ isTakenUp: true } | { isTakenUp: false; why?: string }> {
    if (this.#active.isStopping()) return { isTakenUp: false };
    const { host } = await this.#options.launching.locate(id);
    const { jobs } = this.#options.launching.options.hosts.get(host).host;
    const sessionId = run.point.session.id;
    const session = (await jobs.list()).find((info) => info.sessionId === sessionId);
    // Neither taken up nor ended: the other Catalyst records the run. Its history here would be out of date.
    if (
      this.#followedElsewhere.has(sessionId) ||
      (session !== undefined && (await isFollowedElsewhere(jobs, session)))
    ) {
      this.#followedElsewhere.add(sessionId);
      this.#ideasFollowedElsewhere.add(id);
      throw new CatalystError('SESSION_BUSY', followedElsewhereMessage(host));
    }
    if (session === undefined) return { isTakenUp: false, why: SESSION_GONE_MESSAGE };
    if (this.#active.has(id)) {
      // A new run of the idea is starting, and this one could not be taken up when its history opened: its claude
      // must not go on unseen.
      await jobs.stop(sessionId);
      return { isTakenUp: false, why: RUN_REPLACED_MESSAGE };
    }
    // Shutdown may have begun during the awaits above: a run it did not see would be neither let go nor cancelled.
    if (this.#active.isStopping()) return { isTakenUp: false };
    const { runId, mode, message } = run;
    const launching = launchRun(
      this.#options.launching,
      { id, runId, mode, message },
      { history, point: run.point },
    );
    const claim = claimRun(runId, launching);
    this.#active.hold(id, claim);
    try {
      claim.adopt(await launching);
      return { isTakenUp: true };
    } catch (error) {
      this.#active.release(id);
      throw error;
    }
  }

  #history(id: string): Promise<IdeaHistory> {
    return this.#options.launching.histories.get(id);
  }
}

function runNotFound(runId: string): CatalystError {
  return new CatalystError('RUN_NOT_FOUND', `There is no run ${runId.slice(0, 100)} in Catalyst.`);
}
