import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  AddToQueueBody,
  AutopilotState,
  AutopilotStepState,
  AutopilotView,
  PauseReason,
  QueueKind,
  QueuedStep,
  QuestionPolicy,
  RunMode,
  StartAutopilotBody,
  UpdateQueuedStepBody,
} from '@catalyst/protocol';
import { MAX_AUTOPILOT_STEPS, ideaOfRunId } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { RunEnding, RunError } from '../core/run-ending.ts';
import { settlesWithin } from '../core/settles-within.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ActiveRun } from '../runs/run-driver.ts';
import { isWaiting, readAutopilotView } from '../runs/autopilot-views.ts';
import { newIdeaNamingId, readRunView } from '../runs/run-views.ts';
import { deletingClaim } from './run-claim.ts';
import type { RunOverrides } from './run-launch.ts';

/**
 * The queue of an idea's next messages, and autopilots (issues 12 and 30): one mechanism. A queue is a list of
 * chat and build messages run one after the other, each an ordinary run (same relay, history, cancel, timeouts);
 * an autopilot is a queue started as one, with its own question policy, budget and stop on failure. The
 * `autopilot:*` events in the idea's history say what happened, and are what its view is read from: a queue's
 * waiting steps may be added, edited, moved, removed or sent now (`autopilot:queue_changed`), and a queue waits for
 * a person (`paused`) when its budget is spent (before a step, or the CLI's own budget stop inside one), or, for a
 * plain queue, when a step fails or is cancelled. A paused queue survives restarts (meta.json names it).
 * One queue per idea; while it runs (not paused), the idea takes no other run.
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

/** The message a step stopped mid-way by its budget goes on with, in its session. */
export const CONTINUE_MESSAGE = 'Continue where you stopped.';

/** The longest a queue change just after Catalyst's start waits for the queues an earlier Catalyst left. */
const TAKE_UP_WAIT_MS = 15_000;

interface Step {
  id: string;
  mode: RunMode;
  message: string;
  state: AutopilotStepState;
  runId?: string;
  /** Its run is starting: no longer editable, not yet `running` in the history (it stays first in `pending`). */
  isLaunching?: boolean;
}

interface Running {
  id: string;
  kind: QueueKind;
  history: IdeaHistory;
  steps: Step[];
  /** An autopilot's own policy for its runs; a plain queue's runs follow the idea's. */
  questionPolicy: QuestionPolicy | undefined;
  stopOnFailure: boolean;
  maxBudgetUsd: number | undefined;
  costUsd: number;
  isCancelled: boolean;
  /** Waits for a person; `reason` says why. */
  paused: PauseReason | undefined;
  /** One step may run past the budget (a person's "run one more step"). */
  oneMoreStep: boolean;
  /** The run "send now" stopped: its end neither pauses nor stops the queue. */
  sendingNowRunId: string | undefined;
  /** Its loop is over (writing its end): a message that comes now begins a new queue. */
  isEnding: boolean;
  current: ActiveRun | undefined;
  /** Resolves the wait the drive loop is in (a pause, a person's run): something changed. */
  wake: () => void;
  done: Promise<void>;
}

export class Autopilots {
  readonly #options: AutopilotsOptions;
  /** By idea. */
  readonly #running = new Map<string, Running>();
  /** Queues on their way (their history opening, meta.json marked): the idea's slot is taken. By idea. */
  readonly #opening = new Map<string, Promise<Running | undefined>>();
  /** Catalyst stops and lets runs go on (a restart): the queues stop too, writing nothing, to go on later. */
  #isLettingGo = false;
  /** Catalyst's start is taking up the queues an earlier Catalyst left (`takingUp`): waited for, up to TAKE_UP_WAIT_MS. */
  #takingUp: Promise<void> | undefined;
  /** That take-up is still under way (also past the wait's limit). */
  #isTakingUp = false;

  constructor(options: AutopilotsOptions) {
    this.#options = options;
  }

  /**
   * Catalyst's start takes up the runs and queues an earlier Catalyst left (`done`): until it has, a person's queue
   * change waits for the queue to be here (rather than being refused, or beginning a second queue beside it).
   */
  takingUp(done: Promise<unknown>): void {
    this.#isTakingUp = true;
    const ended = () => {
      this.#isTakingUp = false;
    };
    // A host that cannot be reached holds the take-up up: past the limit, what is asked is answered as it stands.
    const limited = settlesWithin(done.then(ended, ended), TAKE_UP_WAIT_MS).then(() => undefined);
    this.#takingUp = limited;
    void limited.then(() => {
      if (this.#takingUp === limited) this.#takingUp = undefined;
    });
  }

  /** The queue running on the idea (not paused: a paused one lets a person's run go), if any. */
  runningOn(ideaId: string): string | undefined {
    const running = this.#running.get(ideaId);
    return running === undefined || running.paused !== undefined || running.isEnding ? undefined : running.id;
  }

  /** The queue running or paused on the idea: its history stays open, it writes the next step's events. */
  isHolding(ideaId: string): boolean {
    return this.#isTaken(ideaId);
  }

  async start(ideaId: string, body: StartAutopilotBody): Promise<AutopilotView> {
    const busy = await this.#queueOn(ideaId);
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
    this.#follow(ideaId, running, { costUsd: 0 });
    return this.#view(running.history, running.id);
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
    let running = await this.#queueOn(ideaId);
    if (running?.isEnding === true) {
      await running.done;
      running = await this.#queueOn(ideaId);
    }
    if (running !== undefined && !running.isEnding) {
      this.#change(ideaId, running, [...this.#waiting(running), toStep(step)]);
      if (body.sendNow) this.#sendNow(ideaId, running, step.id);
      return this.#view(running.history, running.id);
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
    if (waitFor !== undefined && body.sendNow) {
      opened.sendingNowRunId = waitFor.runId;
      waitFor.cancel();
    }
    this.#follow(ideaId, opened, { costUsd: 0, ...(waitFor === undefined ? {} : { waitFor }) });
    return this.#view(opened.history, opened.id);
  }

  async #open(ideaId: string, spec: QueueSpec): Promise<Running> {
    if (this.#isLettingGo) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    this.#refuseWhileDeleting(ideaId);
    // The idea's slot is taken before anything is awaited: two starts at once never both pass.
    const opening = this.#openQueue(ideaId, spec);
    this.#opening.set(ideaId, opening);
    try {
      const running = await opening;
      this.#running.set(ideaId, running);
      return running;
    } finally {
      this.#opening.delete(ideaId);
    }
  }

  async #openQueue(ideaId: string, spec: QueueSpec): Promise<Running> {
    const id = newIdeaNamingId('ap', ideaId);
    const history = await this.#options.history(ideaId);
    // A queue an earlier Catalyst left, still being taken up (past the wait's limit): not a second one beside it.
    if (this.#isTakingUp && (await this.queue(ideaId)) !== null) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'The queue an earlier Catalyst left on this idea is still being taken up; try again in a moment.',
      );
    }
    if (spec.refuseWhileRunning && this.#options.activeRun(ideaId) !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'This idea has a run going; start the autopilot once it has ended.',
      );
    }
    const shownPolicy = spec.questionPolicy ?? (await this.#options.questionPolicyOf(ideaId));
    // Named in meta.json before it exists in the history: a restart never loses a started queue.
    await this.#options.mark(ideaId, id);
    const steps = spec.steps.map((step) => ({ ...step, id: step.id ?? newStepId() }));
    const running = runningQueue({
      id,
      kind: spec.kind,
      history,
      steps: steps.map(toStep),
      questionPolicy: spec.questionPolicy,
      stopOnFailure: spec.stopOnFailure,
      maxBudgetUsd: spec.maxBudgetUsd,
      costUsd: 0,
      paused: undefined,
    });
    history.append({
      type: 'autopilot:started',
      ideaId,
      autopilotId: id,
      ...(spec.kind === 'queue' ? { kind: 'queue' as const } : {}),
      steps,
      questionPolicy: shownPolicy,
      stopOnFailure: spec.stopOnFailure,
      ...(spec.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: spec.maxBudgetUsd }),
    });
    return running;
  }

  /**
   * At start: goes on with a queue an earlier Catalyst left running or paused (meta.json names it). The step it
   * was in ends as its run did (taken up and followed to its end, or already ended); a paused one waits again.
   */
  async resume(ideaId: string, autopilotId: string): Promise<void> {
    if (this.#isLettingGo || this.#isTaken(ideaId)) return;
    const history = await this.#options.history(ideaId);
    const view = await readAutopilotView(history, autopilotId);
    if (this.#hasLetGo()) return;
    if (view?.state !== 'running' && view?.state !== 'paused') {
      await this.#options.mark(ideaId, undefined);
      return;
    }
    if (this.#isTaken(ideaId)) return;
    const inStepIndex = view.steps.findIndex((step) => step.state === 'running');
    const inStep = view.steps[inStepIndex];
    const running = runningQueue({
      id: autopilotId,
      kind: view.kind,
      history,
      steps: view.steps.map((step) => ({
        id: step.id,
        mode: step.mode,
        message: step.message,
        state: step.state,
        ...(step.runId === undefined ? {} : { runId: step.runId }),
      })),
      questionPolicy: view.kind === 'autopilot' ? view.questionPolicy : undefined,
      stopOnFailure: view.stopOnFailure,
      maxBudgetUsd: view.maxBudgetUsd,
      costUsd: view.costUsd,
      paused: view.paused?.reason,
    });
    this.#running.set(ideaId, running);
    const failed = view.steps.findIndex((step) => step.state === 'failed');
    const failedStep = view.steps[failed];
    this.#options.logger.info({ ideaId, autopilotId, step: view.currentStep }, 'going on with a queue');
    this.#follow(ideaId, running, {
      costUsd: view.costUsd,
      ...(inStep?.runId === undefined ? {} : { inStep: { index: inStepIndex, runId: inStep.runId } }),
      ...(failedStep === undefined || view.kind === 'queue'
        ? {}
        : {
            failure: stepFailure(
              failed,
              failedStep.error?.message ?? 'it did not complete',
              failedStep.error?.code,
            ),
          }),
    });
  }

  #follow(ideaId: string, running: Running, from: DriveFrom): void {
    const { id, history } = running;
    running.done = this.#drive(ideaId, running, from)
      .catch((error: unknown) => {
        this.#options.logger.error({ err: error, ideaId, autopilotId: id }, 'the queue failed');
        history.append({
          type: 'autopilot:ended',
          ideaId,
          autopilotId: id,
          state: 'failed',
          costUsd: running.costUsd,
          error: {
            code: 'INTERNAL',
            message: 'The queue stopped on an error inside Catalyst (see its log).',
          },
        });
      })
      .finally(() => {
        this.#release(ideaId, running);
      });
  }

  #refuseWhileDeleting(ideaId: string): void {
    const busy = this.#options.activeRun(ideaId);
    if (busy === deletingClaim) {
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea is being deleted.');
    }
  }

  /**
   * The idea's queue, once one on its way has opened (undefined when none is, or its opening failed); just after
   * Catalyst's start, once the queue an earlier Catalyst left on the idea may have been taken up.
   */
  async #queueOn(ideaId: string): Promise<Running | undefined> {
    const here = async () =>
      this.#running.get(ideaId) ?? (await this.#opening.get(ideaId)?.catch(() => undefined));
    const found = await here();
    const takingUp = this.#takingUp;
    if (found !== undefined || takingUp === undefined) return found;
    // Only an idea with a queue going in its history (one left) waits; the others are answered at once.
    if ((await this.queue(ideaId).catch(() => null)) === null) return here();
    await takingUp;
    return here();
  }

  #isTaken(ideaId: string): boolean {
    return this.#running.has(ideaId) || this.#opening.has(ideaId);
  }

  #release(ideaId: string, running: Running): void {
    if (this.#running.get(ideaId) === running) this.#running.delete(ideaId);
  }

  /** The idea's current or last autopilot; null when it never had one. */
  async latest(ideaId: string): Promise<AutopilotView | null> {
    return (await readAutopilotView(await this.#options.history(ideaId))) ?? null;
  }

  /** The idea's queue while it runs or waits for a person; null otherwise. */
  async queue(ideaId: string): Promise<AutopilotView | null> {
    const view = await this.latest(ideaId);
    return view?.state === 'running' || view?.state === 'paused' ? view : null;
  }

  async get(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    return this.#view(await this.#options.history(ideaId), autopilotId);
  }

  /** Cancels the running step; the rest are skipped (a paused queue ends). NO_RUN once it has ended. */
  async cancel(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    const running = await this.#queueOn(ideaId);
    const history = await this.#options.history(ideaId);
    if (running?.id !== autopilotId) {
      const view = await this.#view(history, autopilotId);
      throw new CatalystError(
        'NO_RUN',
        view.state === 'running' || view.state === 'paused'
          ? 'This autopilot is not running in this Catalyst (yet): it goes on once Catalyst has taken up its run.'
          : `This autopilot has ended already (${view.state}).`,
      );
    }
    running.isCancelled = true;
    running.current?.cancel();
    running.wake();
    return this.#view(history, autopilotId);
  }

  /** Edits a waiting step: its text, its mode, or its place among the waiting ones (0: next). */
  async updateStep(ideaId: string, stepId: string, body: UpdateQueuedStepBody): Promise<AutopilotView> {
    const running = await this.#queueOf(ideaId);
    const waiting = this.#waiting(running);
    const at = waiting.findIndex((step) => step.id === stepId);
    const step = waiting[at];
    if (step === undefined) throw stepNotFound(stepId);
    const edited: Step = {
      ...step,
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...(body.message === undefined ? {} : { message: body.message }),
    };
    const rest = waiting.filter((other) => other !== step);
    const position = Math.min(body.position ?? at, rest.length);
    this.#change(ideaId, running, [...rest.slice(0, position), edited, ...rest.slice(position)]);
    return this.#view(running.history, running.id);
  }

  async removeStep(ideaId: string, stepId: string): Promise<AutopilotView> {
    const running = await this.#queueOf(ideaId);
    const waiting = this.#waiting(running);
    if (!waiting.some((step) => step.id === stepId)) throw stepNotFound(stepId);
    this.#change(
      ideaId,
      running,
      waiting.filter((step) => step.id !== stepId),
    );
    return this.#view(running.history, running.id);
  }

  /** Stops the turn that runs now (as Cancel does) and sends this waiting step next; a paused queue goes on. */
  async sendStepNow(ideaId: string, stepId: string): Promise<AutopilotView> {
    const running = await this.#queueOf(ideaId);
    if (!this.#waiting(running).some((step) => step.id === stepId)) throw stepNotFound(stepId);
    this.#sendNow(ideaId, running, stepId);
    return this.#view(running.history, running.id);
  }

  #sendNow(ideaId: string, running: Running, stepId: string): void {
    const waiting = this.#waiting(running);
    const step = waiting.find((other) => other.id === stepId);
    if (step === undefined) return;
    this.#change(ideaId, running, [step, ...waiting.filter((other) => other !== step)]);
    const busy = running.current ?? this.#options.activeRun(ideaId);
    if (busy !== undefined && isRun(busy)) {
      running.sendingNowRunId = busy.runId;
      busy.cancel();
    }
    if (running.paused !== undefined)
      this.#goOn(ideaId, running, { oneMoreStep: running.paused === 'budget' });
  }

  /** Removes every waiting step; the turn that runs goes on. A paused queue ends. */
  async clear(ideaId: string): Promise<AutopilotView | null> {
    const running = await this.#queueOn(ideaId);
    if (running === undefined) return this.queue(ideaId);
    this.#change(ideaId, running, []);
    // Nothing is left for a paused queue to go on with (a step stopped mid-way by its budget neither).
    if (running.paused !== undefined) {
      running.isCancelled = true;
      running.wake();
      await running.done;
    }
    return this.queue(ideaId);
  }

  /** Sets the queue's budget (null removes it); a queue paused by its budget goes on once the budget allows. */
  async setBudget(ideaId: string, maxBudgetUsd: number | null): Promise<AutopilotView> {
    const running = await this.#queueOf(ideaId);
    running.maxBudgetUsd = maxBudgetUsd ?? undefined;
    running.history.append({
      type: 'autopilot:budget_changed',
      ideaId,
      autopilotId: running.id,
      maxBudgetUsd,
    });
    if (running.paused === 'budget' && !isSpent(running)) this.#goOn(ideaId, running, { oneMoreStep: false });
    return this.#view(running.history, running.id);
  }

  /** The idea's own budget changed: a queue paused by a budget goes on when its own budget allows (it may pause again). */
  async ideaBudgetChanged(ideaId: string): Promise<void> {
    const running = await this.#queueOn(ideaId);
    if (running?.paused !== 'budget' || isSpent(running)) return;
    // Only once the raise lets a step start: a pause that would come again at once is not undone.
    if (!(await this.#options.ideaBudgetAllows(ideaId))) return;
    if (pauseOf(running) === 'budget') this.#goOn(ideaId, running, { oneMoreStep: false });
  }

  /** Goes on with a paused queue; BUDGET_EXCEEDED when its budget is spent (unless `oneMoreStep`). */
  async goOn(ideaId: string, options: { oneMoreStep: boolean }): Promise<AutopilotView> {
    const running = await this.#queueOf(ideaId);
    if (running.paused === undefined) return this.#view(running.history, running.id);
    if (!options.oneMoreStep && running.paused === 'budget' && isSpent(running)) {
      throw new CatalystError('BUDGET_EXCEEDED', budgetSentence(running));
    }
    this.#goOn(ideaId, running, options);
    return this.#view(running.history, running.id);
  }

  #goOn(ideaId: string, running: Running, options: { oneMoreStep: boolean }): void {
    running.paused = undefined;
    running.oneMoreStep = options.oneMoreStep;
    running.history.append({
      type: 'autopilot:resumed',
      ideaId,
      autopilotId: running.id,
      ...(options.oneMoreStep ? { oneMoreStep: true } : {}),
    });
    running.wake();
  }

  /** The steps not started yet (a step stopped mid-way by its budget is not among them: it goes on first). */
  #waiting(running: Running): Step[] {
    return running.steps.filter(
      (step) => step.state === 'pending' && step.runId === undefined && step.isLaunching !== true,
    );
  }

  /** Replaces the waiting steps; the history says so (every tab's view follows). */
  #change(ideaId: string, running: Running, waiting: Step[]): void {
    if (waiting.length > MAX_AUTOPILOT_STEPS) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        `A queue holds at most ${String(MAX_AUTOPILOT_STEPS)} waiting messages.`,
      );
    }
    const before = this.#waiting(running);
    running.steps = [...running.steps.filter((step) => !before.includes(step)), ...waiting];
    // A step whose run is starting is still pending in the history: it stays first there, where it is here.
    const launching = running.steps.filter((step) => step.isLaunching === true && step.runId === undefined);
    running.history.append({
      type: 'autopilot:queue_changed',
      ideaId,
      autopilotId: running.id,
      pending: [...launching, ...waiting].map(({ id, mode, message }) => ({ id, mode, message })),
    });
    running.wake();
  }

  async #queueOf(ideaId: string): Promise<Running> {
    const running = await this.#queueOn(ideaId);
    if (running !== undefined && !running.isEnding) return running;
    const view = running === undefined ? await this.queue(ideaId) : null;
    throw new CatalystError(
      'NO_QUEUE',
      view === null
        ? 'Nothing is queued on this idea.'
        : 'This queue is not followed by this Catalyst (yet): it goes on once Catalyst has taken up its run.',
    );
  }

  /** The idea is being deleted (it has no run): its queue ends, cancelled, wherever it was. */
  async forget(ideaId: string): Promise<void> {
    const running = await this.#queueOn(ideaId);
    if (running === undefined) return;
    running.isCancelled = true;
    running.current?.cancel();
    running.wake();
    await running.done;
  }

  /** Waits for every queue to stop (after their runs were cancelled or let go). */
  async settled(): Promise<void> {
    await Promise.all([...this.#running.values()].map((running) => running.done));
  }

  async #view(history: IdeaHistory, autopilotId: string): Promise<AutopilotView> {
    const view = await readAutopilotView(history, autopilotId);
    if (view === undefined) {
      throw new CatalystError('AUTOPILOT_NOT_FOUND', `There is no autopilot ${autopilotId.slice(0, 100)}.`);
    }
    return view;
  }

  #pause(ideaId: string, running: Running, reason: PauseReason, message: string): void {
    running.paused = reason;
    running.history.append({ type: 'autopilot:paused', ideaId, autopilotId: running.id, reason, message });
  }

  /** Resolves when something changes for the queue (a person acts on it, a run ends, Catalyst stops). */
  #nextChange(running: Running, also?: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      running.wake = resolve;
      void also?.then(() => {
        resolve();
      });
    });
  }

  async #drive(ideaId: string, running: Running, from: DriveFrom): Promise<void> {
    const { id: autopilotId, history } = running;
    running.costUsd = from.costUsd;
    let state: AutopilotState = from.failure === undefined ? 'completed' : 'failed';
    let failure: RunError | undefined = from.failure;
    const fail = (error: RunError) => {
      failure ??= error;
      state = 'failed';
    };
    /** Records how a step's run ended; false when the queue stops. */
    const endStep = (step: Step, run: Pick<ActiveRun, 'runId' | 'prompts'>, ending: RunEnding): boolean => {
      running.costUsd += ending.result?.costUsd ?? 0;
      const isBudgetStop = ending.error?.code === 'BUDGET_EXCEEDED';
      const stepState = isBudgetStop ? 'paused' : stepStateOf(ending.outcome);
      const index = running.steps.indexOf(step);
      step.state = stepState;
      step.runId = run.runId;
      const wasSentNow = takeSendingNow(running, run.runId);
      const stats = run.prompts?.stats();
      history.append({
        type: 'autopilot:step_ended',
        ideaId,
        runId: run.runId,
        autopilotId,
        index,
        state: stepState,
        ...(ending.result === undefined ? {} : { result: ending.result }),
        ...(ending.error === undefined ? {} : { error: ending.error }),
        ...(stats === undefined
          ? {}
          : {
              questions: {
                questionsAsked: stats.questionsAsked,
                questionsAnsweredAutomatically: stats.questionsAnsweredAutomatically ?? 0,
                autoAnswerRetries: stats.autoAnswerRetries ?? 0,
                auxiliaryCostUsd: stats.auxiliaryCostUsd ?? 0,
              },
            }),
      });
      if (stepState === 'completed') return true;
      if (isBudgetStop) {
        this.#pause(
          ideaId,
          running,
          'budget',
          `${stepWords(index)} stopped at its budget. ${budgetSentence(running)}`,
        );
        return true;
      }
      if (stepState === 'cancelled') {
        if (wasSentNow) return true;
        // Stopped by a person (the page's Stop on the step's run): an autopilot stops too, a queue waits (and
        // ends when nothing waits).
        if (running.kind === 'autopilot' || !hasWaiting(running)) {
          running.isCancelled = true;
          return false;
        }
        this.#pause(
          ideaId,
          running,
          'cancelled',
          `You stopped ${stepWords(index).toLowerCase()}; the rest waits.`,
        );
        return true;
      }
      const why = ending.error?.message ?? `it ended ${ending.outcome}`;
      if (running.kind === 'queue' && hasWaiting(running)) {
        this.#pause(ideaId, running, 'failed', `${stepWords(index)} failed: ${why} The rest waits.`);
        return true;
      }
      fail(stepFailure(index, why, ending.error?.code));
      return running.kind === 'autopilot' && !running.stopOnFailure;
    };
    let isGoingOn = true;
    if (from.inStep !== undefined) {
      const { runId } = from.inStep;
      const active = this.#options.activeRun(ideaId);
      const taken = active?.runId === runId ? active : undefined;
      running.current = taken;
      if (taken !== undefined && isCancelled(running)) taken.cancel();
      const ending = await this.#endingOf(history, runId, taken);
      running.current = undefined;
      if (ending === undefined) return;
      const step = running.steps[from.inStep.index];
      if (step !== undefined) isGoingOn = endStep(step, taken ?? { runId }, ending);
    }
    if (from.waitFor !== undefined) {
      // A person's run was going when the queue began: the queue goes on once it has ended well.
      const ending = await from.waitFor.ended;
      if (this.#hasLetGo()) return;
      const wasSentNow = takeSendingNow(running, from.waitFor.runId);
      if (ending.outcome !== 'completed' && !wasSentNow && !isCancelled(running) && hasWaiting(running)) {
        this.#pause(
          ideaId,
          running,
          ending.outcome === 'cancelled' ? 'cancelled' : 'failed',
          ending.outcome === 'cancelled'
            ? 'You stopped the run before the queue; the queue waits.'
            : `The run before the queue ended ${ending.outcome}; the queue waits.`,
        );
      }
    }
    while (isGoingOn) {
      if (this.#hasLetGo()) return;
      if (isCancelled(running)) {
        state = 'cancelled';
        break;
      }
      if (running.paused !== undefined) {
        await this.#nextChange(running);
        continue;
      }
      // A person's run (allowed while the queue waited): the next step follows once it has ended.
      const busy = this.#options.activeRun(ideaId);
      if (busy !== undefined) {
        await this.#nextChange(running, this.#options.whenFree(ideaId));
        // Its end was "send now"'s doing: that says nothing about a later step's cancel.
        if (this.#options.activeRun(ideaId) !== busy) takeSendingNow(running, busy.runId);
        continue;
      }
      const step = running.steps.find((candidate) => isWaiting(candidate.state));
      if (step === undefined) break;
      let index = running.steps.indexOf(step);
      const left = running.maxBudgetUsd === undefined ? undefined : running.maxBudgetUsd - running.costUsd;
      if (left !== undefined && left <= 0 && !running.oneMoreStep) {
        this.#pause(
          ideaId,
          running,
          'budget',
          `Paused before ${stepWords(index).toLowerCase()}: ${budgetSentence(running)}`,
        );
        continue;
      }
      const isGoingOnInStep = step.state === 'paused';
      let run: ActiveRun;
      // From here it is no longer a person's to edit, move or remove: it is being sent.
      step.isLaunching = true;
      try {
        const next = running.steps.slice(index + 1).find((other) => isWaiting(other.state));
        run = await this.#options.launch(
          ideaId,
          step.mode,
          isGoingOnInStep ? CONTINUE_MESSAGE : step.message,
          {
            ...(running.questionPolicy === undefined ? {} : { questionPolicy: running.questionPolicy }),
            ...(left === undefined || running.oneMoreStep
              ? {}
              : { budgetCap: { key: `${autopilotId}/${String(running.maxBudgetUsd)}`, remainingUsd: left } }),
            // A process of the other mode ends with this step's turn, not when the next step starts.
            ...(next === undefined ? {} : { nextMode: next.mode }),
          },
        );
      } catch (error) {
        step.isLaunching = false;
        if (this.#hasLetGo()) return;
        index = running.steps.indexOf(step);
        const reason = isCatalystError(error)
          ? { code: error.code, message: error.message }
          : { code: 'INTERNAL' as const, message: 'The step could not start.' };
        // A person's run began meanwhile: the loop waits for it.
        if (reason.code === 'RUN_IN_PROGRESS' && this.#options.activeRun(ideaId) !== undefined) continue;
        // The idea's own budget is spent: the queue waits until it is raised.
        if (reason.code === 'BUDGET_EXCEEDED') {
          this.#pause(ideaId, running, 'budget', reason.message);
          continue;
        }
        if (running.kind === 'queue') {
          this.#pause(ideaId, running, 'failed', `${stepWords(index)} could not start: ${reason.message}`);
          continue;
        }
        if (reason.code === 'RUN_IN_PROGRESS') continue;
        step.state = 'failed';
        history.append({
          type: 'autopilot:step_ended',
          ideaId,
          autopilotId,
          index,
          state: 'failed',
          error: reason,
        });
        fail(stepFailure(index, reason.message, reason.code));
        if (running.stopOnFailure) break;
        continue;
      }
      running.oneMoreStep = false;
      running.current = run;
      step.isLaunching = false;
      step.state = 'running';
      step.runId = run.runId;
      // Its place, counted anew after the await (the waiting steps behind it may have changed).
      index = running.steps.indexOf(step);
      history.append({ type: 'autopilot:step_started', ideaId, runId: run.runId, autopilotId, index });
      // Catalyst began to let go while the step started: the run goes on, and the next Catalyst
      // follows it as this step's run.
      if (this.#hasLetGo()) {
        run.detach?.();
        return;
      }
      // A cancel that came while the run was starting.
      if (isCancelled(running)) run.cancel();
      const ending = await run.ended;
      running.current = undefined;
      // Let go (a restart): the run goes on in its session, and the next Catalyst goes on from here.
      if (this.#hasLetGo()) return;
      isGoingOn = endStep(step, run, ending);
    }
    running.isEnding = true;
    if (isCancelled(running)) state = 'cancelled';
    // Free before the end is seen, as a run is: a client acting on autopilot:ended (a second cancel, a new
    // queue) finds none running. meta.json first, so a new queue's mark is never undone by this one's.
    await this.#options.mark(ideaId, undefined);
    this.#release(ideaId, running);
    history.append({
      type: 'autopilot:ended',
      ideaId,
      autopilotId,
      state,
      costUsd: running.costUsd,
      ...(state === 'failed' && failure !== undefined ? { error: failure } : {}),
    });
  }

  /** Read through a call: Catalyst may let go while the loop awaits. */
  #hasLetGo(): boolean {
    return this.#isLettingGo;
  }

  /**
   * How the run of the step a restart interrupted ended: followed to its end when this Catalyst took it up, read
   * from the history when it ended before; undefined when Catalyst lets go meanwhile.
   */
  async #endingOf(
    history: IdeaHistory,
    runId: string,
    taken: ActiveRun | undefined,
  ): Promise<RunEnding | undefined> {
    if (taken !== undefined) {
      const ending = await taken.ended;
      return this.#hasLetGo() ? undefined : ending;
    }
    const view = await readRunView(history, runId);
    // Not ended, and not followed here (another Catalyst follows it, or its host could not be reached): the
    // queue is left as it is, for whoever follows the run, or for the next start.
    if (view?.state === 'running') return undefined;
    if (view === undefined) {
      return {
        outcome: 'connection_lost',
        error: { code: 'CONNECTION_LOST', message: 'The step’s run is not in the idea’s history.' },
      };
    }
    return {
      outcome: view.state,
      ...(view.result === undefined ? {} : { result: view.result }),
      ...(view.error === undefined ? {} : { error: view.error }),
    };
  }

  /**
   * Catalyst stops (called before its runs are let go or cancelled). With `keepRuns` (a restart) the queues stop
   * where they are, writing nothing: the next Catalyst goes on with them. Otherwise they end `cancelled` with their
   * runs. Resolves once every one has stopped.
   */
  stop(options: { keepRuns: boolean }): Promise<void> {
    this.#isLettingGo = options.keepRuns;
    for (const running of this.#running.values()) {
      if (!options.keepRuns) running.isCancelled = true;
      running.wake();
    }
    return this.settled();
  }
}

/** What a new queue is made of: its kind, first steps and policies. */
interface QueueSpec {
  kind: QueueKind;
  steps: QueuedStep[];
  questionPolicy: QuestionPolicy | undefined;
  stopOnFailure: boolean;
  maxBudgetUsd: number | undefined;
  /** An autopilot is refused while a run goes; a queue waits for it. */
  refuseWhileRunning: boolean;
}

/** A queue as the engine holds it, from what it is made of and where it stands. */
function runningQueue(
  fields: Pick<
    Running,
    | 'id'
    | 'kind'
    | 'history'
    | 'steps'
    | 'questionPolicy'
    | 'stopOnFailure'
    | 'maxBudgetUsd'
    | 'costUsd'
    | 'paused'
  >,
): Running {
  return {
    ...fields,
    isCancelled: false,
    oneMoreStep: false,
    sendingNowRunId: undefined,
    isEnding: false,
    current: undefined,
    wake: () => undefined,
    done: Promise.resolve(),
  };
}

interface DriveFrom {
  costUsd: number;
  /** A step whose run was going when the queue was resumed: it ends as that run does. */
  inStep?: { index: number; runId: string };
  /** A person's run going when the queue began: the queue waits for it (and pauses if it fails). */
  waitFor?: ActiveRun;
  /** The first step that failed before a restart (stopOnFailure false): the autopilot still ends failed. */
  failure?: RunError;
}

/** Read through a call: a person may resume the queue while a caller awaits. */
function pauseOf(running: Running): PauseReason | undefined {
  return running.paused;
}

/** Read through a call: a cancel arrives while the loop awaits. */
function isCancelled(running: Running): boolean {
  return running.isCancelled;
}

/** Whether "send now" stopped this run; forgotten once that run has ended, whichever way. */
function takeSendingNow(running: Running, runId: string): boolean {
  if (running.sendingNowRunId !== runId) return false;
  running.sendingNowRunId = undefined;
  return true;
}

/** A step waits to be sent (or to go on, stopped mid-way by its budget). */
function hasWaiting(running: Running): boolean {
  return running.steps.some((step) => isWaiting(step.state) && step.isLaunching !== true);
}

/** A run's claim, not a delete's or a restore's placeholder (whose `runId` names no run). */
function isRun(busy: ActiveRun): boolean {
  return ideaOfRunId(busy.runId) !== undefined;
}

function isSpent(running: Running): boolean {
  return running.maxBudgetUsd !== undefined && running.costUsd >= running.maxBudgetUsd;
}

function budgetSentence(running: Running): string {
  const spent = `$${running.costUsd.toFixed(4)}`;
  return running.maxBudgetUsd === undefined
    ? `It has spent ${spent}; raise the budget to go on.`
    : `It has spent ${spent} of its $${running.maxBudgetUsd.toFixed(4)} budget; raise it, or run one more step, to go on.`;
}

function toStep(step: QueuedStep): Step {
  return { id: step.id ?? newStepId(), mode: step.mode, message: step.message, state: 'pending' };
}

function newStepId(): string {
  return `q-${randomUUID().slice(0, 8)}`;
}

function stepNotFound(stepId: string): CatalystError {
  return new CatalystError(
    'QUEUE_STEP_NOT_FOUND',
    `No waiting message ${stepId.slice(0, 64)} in this idea’s queue (it may have been sent already).`,
  );
}

function stepWords(index: number): string {
  return `Step ${String(index + 1)}`;
}

function stepStateOf(outcome: string): AutopilotStepState {
  if (outcome === 'completed') return 'completed';
  if (outcome === 'cancelled') return 'cancelled';
  return 'failed';
}

function stepFailure(index: number, why: string, code: RunError['code'] = 'CLI_FAILED'): RunError {
  return { code, message: `Step ${String(index + 1)} failed: ${why}` };
}
