import type { Logger } from 'pino';
import type {
  AddToQueueBody,
  AutopilotView,
  QuestionPolicy,
  RunMode,
  StartAutopilotBody,
  UpdateQueuedStepBody,
} from '@catalyst/protocol';
import { ideaOfRunId } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { mayGoOnOnceIdeaBudgetAllows, resumedQueue, type QueueInput } from './core/queue-machine.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ActiveRun } from '../runs/active-run.ts';
import { readAutopilotView } from './autopilot-views.ts';
import {
  applyToQueue,
  driveQueue,
  runningQueue,
  type DriveFrom,
  type RunningQueue,
} from './autopilot-drive.ts';
import { AutopilotQueues, newStepId, type QueueOpening } from './autopilot-queues.ts';
import { deletingClaim } from '../runs/run-claim.ts';
import type { RunOverrides } from '../runs/run-launch.ts';

export { CONTINUE_MESSAGE } from './core/queue-machine.ts';

/**
 * The queue of an idea's next messages, and autopilots (issues 12 and 30): one mechanism. A queue is a list of
 * chat and build messages run one after the other, each an ordinary run (same relay, history, cancel, timeouts);
 * an autopilot is a queue started as one, with its own question policy, budget and stop on failure. The
 * `autopilot:*` events in the idea's history say what happened, and are what its view is read from: a queue's
 * waiting steps may be added, edited, moved, removed or sent now (`autopilot:queue_changed`), and a queue waits for
 * a person (`paused`) when its budget is spent (before a step, or the CLI's own budget stop inside one), or, for a
 * plain queue, when a step fails or is cancelled. A paused queue survives restarts (meta.json names it).
 * One queue per idea; while it runs (not paused), the idea takes no other run.
 *
 * What a queue does is decided by its pure state machine (queue/core/queue-machine.ts); this holds the queues of this
 * Catalyst, opens and takes them up, and carries the decisions out (its drive loop is in autopilot-drive.ts).
 */

export interface AutopilotsOptions {
  /** Starts a run with the queue's overrides; rejects when it cannot (RUN_IN_PROGRESS, BUDGET_EXCEEDED, …). */
  launch(id: string, mode: RunMode, message: string, overrides: RunOverrides): Promise<ActiveRun>;
  history(id: string): Promise<IdeaHistory>;
  /**
   * What holds the idea's place now: a run this Catalyst follows (one it took up after a restart, too), or a delete's
   * or a restore's placeholder (its `runId` names no run).
   */
  activeRun(id: string): ActiveRun | undefined;
  /** Resolves once the idea's place is free. */
  whenFree(id: string): Promise<void>;
  /** Whether the idea's own budget leaves something to spend (true without one). */
  ideaBudgetAllows(id: string): Promise<boolean>;
  /** The idea's own question policy: what a plain queue says it follows (its runs follow the idea's). */
  questionPolicyOf(id: string): Promise<QuestionPolicy>;
  /** Records in the idea's meta.json which queue runs or waits (undefined: none), so a restarted Catalyst goes on. */
  mark(id: string, autopilotId: string | undefined): Promise<void>;
  logger: Logger;
}

export class Autopilots {
  readonly #options: AutopilotsOptions;
  readonly #queues: AutopilotQueues;
  /** Catalyst stops and lets runs go on (a restart): the queues stop too, writing nothing, to go on later. */
  #isLettingGo = false;

  constructor(options: AutopilotsOptions) {
    this.#options = options;
    this.#queues = new AutopilotQueues(options);
  }

  /**
   * Catalyst's start takes up the runs and queues an earlier Catalyst left (`done`): until it has, a person's queue
   * change waits for the queue to be here (rather than being refused, or beginning a second queue beside it).
   */
  takingUp(done: Promise<unknown>): void {
    this.#queues.takingUp(done);
  }

  /** The queue running on the idea (not paused: a paused one lets a person's run go), if any. */
  runningOn(ideaId: string): string | undefined {
    const state = this.#queues.heldOn(ideaId)?.state;
    return state === undefined || state.paused !== undefined || state.isEnding ? undefined : state.id;
  }

  /** The queue running or paused on the idea: its history stays open, it writes the next step's events. */
  isHolding(ideaId: string): boolean {
    return this.#queues.isTaken(ideaId);
  }

  async start(ideaId: string, body: StartAutopilotBody): Promise<AutopilotView> {
    const busy = (await this.#queues.queueOn(ideaId))?.state;
    if (busy !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        busy.kind === 'queue'
          ? 'Messages are queued on this idea; start the autopilot once they have been sent (or clear them).'
          : `An autopilot (${busy.id}) is running on this idea already.`,
      );
    }
    const running = await this.#open(ideaId, {
      kind: 'autopilot',
      steps: body.steps,
      questionPolicy: body.questionPolicy,
      stopOnFailure: body.stopOnFailure,
      maxBudgetUsd: body.maxBudgetUsd,
      refuseWhileRunning: true,
    });
    this.#follow(running, {});
    return this.#view(running.history, running.state.id);
  }

  /**
   * A person's message for the idea's queue (`POST /api/ideas/:id/queue`, or the composer while the idea is busy):
   * it joins the running or paused queue, or begins one (which waits for a run going now, and starts at once when
   * the idea is idle). `sendNow` stops the turn that runs and sends this message next.
   */
  async add(ideaId: string, body: AddToQueueBody): Promise<AutopilotView> {
    const step = { id: newStepId(), mode: body.mode, message: body.message };
    this.#refuseWhileDeleting(ideaId);
    // A queue on its way (two messages at once): this one joins it. One writing its end is let finish first.
    let running = await this.#queues.queueOn(ideaId);
    if (running?.state.isEnding === true) {
      await running.done;
      running = await this.#queues.queueOn(ideaId);
    }
    if (running !== undefined && !running.state.isEnding) {
      this.#apply(running, { type: 'add', step });
      if (body.sendNow) this.#sendNow(running, step.id);
      return this.#view(running.history, running.state.id);
    }
    const opened = await this.#open(ideaId, {
      kind: 'queue',
      steps: [step],
      questionPolicy: undefined,
      stopOnFailure: false,
      maxBudgetUsd: undefined,
      refuseWhileRunning: false,
    });
    // A person's run it waits for (a restore's placeholder is waited for as any busy place is, by the loop).
    const busy = this.#options.activeRun(ideaId);
    const waitFor = busy !== undefined && isRun(busy) ? busy : undefined;
    if (waitFor !== undefined && body.sendNow)
      this.#apply(opened, { type: 'stop_run_before', runId: waitFor.runId });
    this.#follow(opened, waitFor === undefined ? {} : { waitFor });
    return this.#view(opened.history, opened.state.id);
  }

  async #open(ideaId: string, spec: QueueOpening): Promise<RunningQueue> {
    if (this.#isLettingGo) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    this.#refuseWhileDeleting(ideaId);
    return this.#queues.open(ideaId, spec);
  }

  /**
   * At start: goes on with a queue an earlier Catalyst left running or paused (meta.json names it). The step it
   * was in ends as its run did (taken up and followed to its end, or already ended); a paused one waits again.
   */
  async resume(ideaId: string, autopilotId: string): Promise<void> {
    if (this.#isLettingGo || this.#queues.isTaken(ideaId)) return;
    const history = await this.#options.history(ideaId);
    const view = await readAutopilotView(history, autopilotId);
    if (this.#hasLetGo()) return;
    if (view?.state !== 'running' && view?.state !== 'paused') {
      await this.#options.mark(ideaId, undefined);
      return;
    }
    if (this.#queues.isTaken(ideaId)) return;
    const { state, inStepRunId } = resumedQueue(ideaId, view);
    const running = runningQueue(state, history);
    this.#queues.hold(running);
    this.#options.logger.info({ ideaId, autopilotId, step: view.currentStep }, 'going on with a queue');
    this.#follow(running, inStepRunId === undefined ? {} : { inStepRunId });
  }

  #follow(running: RunningQueue, from: DriveFrom): void {
    const { ideaId, history } = running;
    const context = {
      options: this.#options,
      hasLetGo: () => this.#hasLetGo(),
      release: (queue: RunningQueue) => {
        this.#queues.release(queue);
      },
    };
    running.done = driveQueue(context, running, from)
      .catch((error: unknown) => {
        const autopilotId = running.state.id;
        this.#options.logger.error({ err: error, ideaId, autopilotId }, 'the queue failed');
        history.append({
          type: 'autopilot:ended',
          ideaId,
          autopilotId,
          state: 'failed',
          costUsd: running.state.costUsd,
          error: {
            code: 'INTERNAL',
            message: 'The queue stopped on an error inside Catalyst (see its log).',
          },
        });
      })
      .finally(() => {
        this.#queues.release(running);
      });
  }

  #refuseWhileDeleting(ideaId: string): void {
    const busy = this.#options.activeRun(ideaId);
    if (busy === deletingClaim) {
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea is being deleted.');
    }
  }

  /** Read through a call: Catalyst may let go while a caller awaits. */
  #hasLetGo(): boolean {
    return this.#isLettingGo;
  }

  /** The idea's current or last autopilot; null when it never had one. */
  async latest(ideaId: string): Promise<AutopilotView | null> {
    return this.#queues.latest(ideaId);
  }

  /** The idea's queue while it runs or waits for a person; null otherwise. */
  async queue(ideaId: string): Promise<AutopilotView | null> {
    return this.#queues.queue(ideaId);
  }

  async get(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    return this.#view(await this.#options.history(ideaId), autopilotId);
  }

  /** Cancels the running step; the rest are skipped (a paused queue ends). NO_RUN once it has ended. */
  async cancel(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    const running = await this.#queues.queueOn(ideaId);
    const history = await this.#options.history(ideaId);
    if (running?.state.id !== autopilotId) {
      const view = await this.#view(history, autopilotId);
      throw new CatalystError(
        'NO_RUN',
        view.state === 'running' || view.state === 'paused'
          ? 'This autopilot is not running in this Catalyst (yet): it goes on once Catalyst has taken up its run.'
          : `This autopilot has ended already (${view.state}).`,
      );
    }
    this.#apply(running, { type: 'cancel' });
    return this.#view(history, autopilotId);
  }

  /** Edits a waiting step: its text, its mode, or its place among the waiting ones (0: next). */
  async updateStep(ideaId: string, stepId: string, body: UpdateQueuedStepBody): Promise<AutopilotView> {
    const running = await this.#queues.queueOf(ideaId);
    const { mode, message, position } = body;
    this.#apply(running, { type: 'update', stepId, mode, message, position });
    return this.#view(running.history, running.state.id);
  }

  async removeStep(ideaId: string, stepId: string): Promise<AutopilotView> {
    const running = await this.#queues.queueOf(ideaId);
    this.#apply(running, { type: 'remove', stepId });
    return this.#view(running.history, running.state.id);
  }

  /** Stops the turn that runs now (as Cancel does) and sends this waiting step next; a paused queue goes on. */
  async sendStepNow(ideaId: string, stepId: string): Promise<AutopilotView> {
    const running = await this.#queues.queueOf(ideaId);
    this.#sendNow(running, stepId);
    return this.#view(running.history, running.state.id);
  }

  #sendNow(running: RunningQueue, stepId: string): void {
    const busy = running.current ?? this.#options.activeRun(running.ideaId);
    const busyRunId = busy !== undefined && isRun(busy) ? busy.runId : undefined;
    this.#apply(running, { type: 'send_now', stepId, busyRunId });
  }

  /** Removes every waiting step; the turn that runs goes on. A paused queue ends. */
  async clear(ideaId: string): Promise<AutopilotView | null> {
    const running = await this.#queues.queueOn(ideaId);
    if (running === undefined) return this.queue(ideaId);
    this.#apply(running, { type: 'clear' });
    if (running.state.paused !== undefined) await running.done;
    return this.queue(ideaId);
  }

  /** Sets the queue's budget (null removes it); a queue paused by its budget goes on once the budget allows. */
  async setBudget(ideaId: string, maxBudgetUsd: number | null): Promise<AutopilotView> {
    const running = await this.#queues.queueOf(ideaId);
    this.#apply(running, { type: 'set_budget', maxBudgetUsd });
    return this.#view(running.history, running.state.id);
  }

  /**
   * The idea's own budget changed: a queue paused by a budget goes on when its own budget allows (it may pause
   * again).
   */
  async ideaBudgetChanged(ideaId: string): Promise<void> {
    const running = await this.#queues.queueOn(ideaId);
    if (running === undefined || !mayGoOnOnceIdeaBudgetAllows(running.state)) return;
    // Only once the raise lets a step start: a pause that would come again at once is not undone.
    if (!(await this.#options.ideaBudgetAllows(ideaId))) return;
    this.#apply(running, { type: 'idea_budget_raised' });
  }

  /** Goes on with a paused queue; BUDGET_EXCEEDED when its budget is spent (unless `oneMoreStep`). */
  async goOn(ideaId: string, options: { oneMoreStep: boolean }): Promise<AutopilotView> {
    const running = await this.#queues.queueOf(ideaId);
    this.#apply(running, { type: 'go_on', oneMoreStep: options.oneMoreStep });
    return this.#view(running.history, running.state.id);
  }

  /** The idea is being deleted (it has no run): its queue ends, cancelled, wherever it was. */
  async forget(ideaId: string): Promise<void> {
    const running = await this.#queues.queueOn(ideaId);
    if (running === undefined) return;
    this.#apply(running, { type: 'cancel' });
    await running.done;
  }

  /** Waits for every queue to stop (after their runs were cancelled or let go). */
  async settled(): Promise<void> {
    await Promise.all(this.#queues.all().map((running) => running.done));
  }

  /**
   * Catalyst stops (called before its runs are let go or cancelled). With `keepRuns` (a restart) the queues stop
   * where they are, writing nothing: the next Catalyst goes on with them. Otherwise they end `cancelled` with their
   * runs. Resolves once every one has stopped.
   */
  stop(options: { keepRuns: boolean }): Promise<void> {
    this.#isLettingGo = options.keepRuns;
    for (const running of this.#queues.all()) {
      this.#apply(running, { type: 'catalyst_stopping', keepRuns: options.keepRuns });
    }
    return this.settled();
  }

  #apply(running: RunningQueue, input: QueueInput): void {
    applyToQueue(running, input, this.#options);
  }

  async #view(history: IdeaHistory, autopilotId: string): Promise<AutopilotView> {
    const view = await readAutopilotView(history, autopilotId);
    if (view === undefined) {
      throw new CatalystError('AUTOPILOT_NOT_FOUND', `There is no autopilot ${autopilotId.slice(0, 100)}.`);
    }
    return view;
  }
}

/** A run's claim, not a delete's or a restore's placeholder (whose `runId` names no run). */
function isRun(busy: ActiveRun): boolean {
  return ideaOfRunId(busy.runId) !== undefined;
}
