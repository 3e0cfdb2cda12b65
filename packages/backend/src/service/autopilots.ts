import type { Logger } from 'pino';
import type {
  AutopilotState,
  AutopilotStepState,
  AutopilotView,
  RunMode,
  StartAutopilotBody,
} from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { RunEnding, RunError } from '../core/run-ending.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ActiveRun } from '../runs/run-driver.ts';
import { readAutopilotView } from '../runs/autopilot-views.ts';
import { newIdeaNamingId, readRunView } from '../runs/run-views.ts';
import type { RunOverrides } from './run-launch.ts';

/**
 * Autopilots (issue 12): an idea's list of chat and build messages run one after the other, unattended. Each step
 * is an ordinary run (same relay, history, cancel, timeouts), started with the autopilot's question policy and
 * budget; the `autopilot:*` events in the idea's history say what happened, and are what its view is read from.
 * One autopilot per idea; while it runs, the idea takes no other run.
 */

export interface AutopilotsOptions {
  /** Starts a run with the autopilot's overrides; rejects when it cannot (RUN_IN_PROGRESS, BUDGET_EXCEEDED, …). */
  launch(id: string, mode: RunMode, message: string, overrides: RunOverrides): Promise<ActiveRun>;
  history(id: string): Promise<IdeaHistory>;
  isRunning(id: string): boolean;
  /** The idea's run this Catalyst follows now (one it took up after a restart, too). */
  activeRun(id: string): ActiveRun | undefined;
  /** Records in the idea's meta.json which autopilot runs (undefined: none), so a restarted Catalyst goes on. */
  mark(id: string, autopilotId: string | undefined): Promise<void>;
  logger: Logger;
}

interface Running {
  id: string;
  isCancelled: boolean;
  current: ActiveRun | undefined;
  done: Promise<void>;
}

export class Autopilots {
  readonly #options: AutopilotsOptions;
  /** By idea. */
  readonly #running = new Map<string, Running>();
  /** Catalyst stops and lets runs go on (a restart): the autopilots stop too, writing nothing, to go on later. */
  #isLettingGo = false;

  constructor(options: AutopilotsOptions) {
    this.#options = options;
  }

  /** The autopilot running on the idea, if any. */
  runningOn(ideaId: string): string | undefined {
    return this.#running.get(ideaId)?.id;
  }

  async start(ideaId: string, body: StartAutopilotBody): Promise<AutopilotView> {
    const busy = this.#running.get(ideaId);
    if (busy !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        `An autopilot (${busy.id}) is running on this idea already.`,
      );
    }
    if (this.#isLettingGo) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    // The idea's slot is taken before anything is awaited: two starts at once never both pass.
    const id = newIdeaNamingId('ap', ideaId);
    const running: Running = { id, isCancelled: false, current: undefined, done: Promise.resolve() };
    this.#running.set(ideaId, running);
    let history: IdeaHistory;
    try {
      history = await this.#options.history(ideaId);
      if (this.#options.isRunning(ideaId)) {
        throw new CatalystError(
          'RUN_IN_PROGRESS',
          'This idea has a run going; start the autopilot once it has ended.',
        );
      }
      // Named in meta.json before it exists in the history: a restart never loses a started autopilot.
      await this.#options.mark(ideaId, id);
    } catch (error) {
      this.#release(ideaId, running);
      throw error;
    }
    history.append({
      type: 'autopilot:started',
      ideaId,
      autopilotId: id,
      steps: body.steps,
      questionPolicy: body.questionPolicy,
      stopOnFailure: body.stopOnFailure,
      ...(body.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: body.maxBudgetUsd }),
    });
    this.#follow(ideaId, running, history, body, { index: 0, costUsd: 0 });
    return this.#view(history, id);
  }

  /**
   * At start: goes on with an autopilot an earlier Catalyst left running (meta.json names it). The step it was in
   * ends as its run did (taken up and followed to its end, or already ended); the next steps run as usual.
   */
  async resume(ideaId: string, autopilotId: string): Promise<void> {
    if (this.#isLettingGo || this.#running.has(ideaId)) return;
    const history = await this.#options.history(ideaId);
    const view = await readAutopilotView(history, autopilotId);
    if (this.#hasLetGo()) return;
    if (view?.state !== 'running') {
      await this.#options.mark(ideaId, undefined);
      return;
    }
    if (this.#running.has(ideaId)) return;
    const running: Running = {
      id: autopilotId,
      isCancelled: false,
      current: undefined,
      done: Promise.resolve(),
    };
    this.#running.set(ideaId, running);
    const body: StartAutopilotBody = {
      steps: view.steps.map(({ mode, message }) => ({ mode, message })),
      questionPolicy: view.questionPolicy,
      stopOnFailure: view.stopOnFailure,
      ...(view.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: view.maxBudgetUsd }),
    };
    // From the first step not started yet; a step whose run was going ends as that run does.
    const inStepIndex = view.steps.findIndex((step) => step.state === 'running');
    const inStep = view.steps[inStepIndex];
    const pending = view.steps.findIndex((step) => step.state === 'pending');
    const failed = view.steps.findIndex((step) => step.state === 'failed');
    const failedStep = view.steps[failed];
    this.#options.logger.info({ ideaId, autopilotId, step: view.currentStep }, 'going on with an autopilot');
    this.#follow(ideaId, running, history, body, {
      index: pending === -1 ? view.steps.length : pending,
      costUsd: view.costUsd,
      ...(inStep?.runId === undefined ? {} : { inStep: { index: inStepIndex, runId: inStep.runId } }),
      ...(failedStep === undefined
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

  #follow(
    ideaId: string,
    running: Running,
    history: IdeaHistory,
    body: StartAutopilotBody,
    from: DriveFrom,
  ): void {
    const { id } = running;
    running.done = this.#drive(ideaId, running, body, history, from)
      .catch((error: unknown) => {
        this.#options.logger.error({ err: error, ideaId, autopilotId: id }, 'the autopilot failed');
        history.append({
          type: 'autopilot:ended',
          ideaId,
          autopilotId: id,
          state: 'failed',
          costUsd: 0,
          error: {
            code: 'INTERNAL',
            message: 'The autopilot stopped on an error inside Catalyst (see its log).',
          },
        });
      })
      .finally(() => {
        this.#release(ideaId, running);
      });
  }

  #release(ideaId: string, running: Running): void {
    if (this.#running.get(ideaId) === running) this.#running.delete(ideaId);
  }

  /** The idea's current or last autopilot; null when it never had one. */
  async latest(ideaId: string): Promise<AutopilotView | null> {
    return (await readAutopilotView(await this.#options.history(ideaId))) ?? null;
  }

  async get(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    return this.#view(await this.#options.history(ideaId), autopilotId);
  }

  /** Cancels the running step; the rest are skipped. NO_RUN once it has ended. */
  async cancel(ideaId: string, autopilotId: string): Promise<AutopilotView> {
    const running = this.#running.get(ideaId);
    const history = await this.#options.history(ideaId);
    if (running?.id !== autopilotId) {
      const view = await this.#view(history, autopilotId);
      throw new CatalystError(
        'NO_RUN',
        view.state === 'running'
          ? 'This autopilot is not running in this Catalyst (yet): it goes on once Catalyst has taken up its run.'
          : `This autopilot has ended already (${view.state}).`,
      );
    }
    running.isCancelled = true;
    running.current?.cancel();
    return this.#view(history, autopilotId);
  }

  /** Waits for every autopilot to stop (after their runs were cancelled or let go). */
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

  async #drive(
    ideaId: string,
    running: Running,
    body: StartAutopilotBody,
    history: IdeaHistory,
    from: DriveFrom,
  ): Promise<void> {
    const { id: autopilotId } = running;
    let { costUsd } = from;
    let state = (from.failure === undefined ? 'completed' : 'failed') as AutopilotState;
    let failure: RunError | undefined = from.failure;
    const fail = (error: RunError) => {
      failure ??= error;
      state = 'failed';
    };
    const endStep = (
      index: number,
      run: Pick<ActiveRun, 'runId' | 'prompts'>,
      ending: RunEnding,
    ): boolean => {
      costUsd += ending.result?.costUsd ?? 0;
      const stepState = stepStateOf(ending.outcome);
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
      // Stopped by a person (the page's Stop on the step's run): the autopilot stops too.
      if (stepState === 'cancelled') {
        running.isCancelled = true;
        return false;
      }
      fail(stepFailure(index, ending.error?.message ?? `it ended ${ending.outcome}`, ending.error?.code));
      return !body.stopOnFailure;
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
      isGoingOn = endStep(from.inStep.index, taken ?? { runId }, ending);
    }
    for (const [index, step] of body.steps.entries()) {
      if (index < from.index || !isGoingOn) continue;
      if (this.#isLettingGo) return;
      if (running.isCancelled) {
        state = 'cancelled';
        break;
      }
      const left = body.maxBudgetUsd === undefined ? undefined : body.maxBudgetUsd - costUsd;
      let run: ActiveRun;
      try {
        if (left !== undefined && left <= 0) {
          throw new CatalystError('BUDGET_EXCEEDED', 'The autopilot has spent its budget (maxBudgetUsd).');
        }
        run = await this.#options.launch(ideaId, step.mode, step.message, {
          questionPolicy: body.questionPolicy,
          ...(left === undefined ? {} : { budgetCap: { key: autopilotId, remainingUsd: left } }),
        });
      } catch (error) {
        const reason = isCatalystError(error)
          ? { code: error.code, message: error.message }
          : { code: 'INTERNAL' as const, message: 'The step could not start.' };
        history.append({
          type: 'autopilot:step_ended',
          ideaId,
          autopilotId,
          index,
          state: 'failed',
          error: reason,
        });
        fail(stepFailure(index, reason.message, reason.code));
        if (body.stopOnFailure) break;
        continue;
      }
      running.current = run;
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
      const isNext = endStep(index, run, ending);
      if (isCancelled(running)) {
        state = 'cancelled';
        break;
      }
      if (!isNext) break;
    }
    if (isCancelled(running)) state = 'cancelled';
    // Free before the end is seen, as a run is: a client acting on autopilot:ended (a second cancel, a new
    // autopilot) finds none running. meta.json first, so a new autopilot's mark is never undone by this one's.
    await this.#options.mark(ideaId, undefined);
    this.#release(ideaId, running);
    history.append({
      type: 'autopilot:ended',
      ideaId,
      autopilotId,
      state,
      costUsd,
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
    // autopilot is left as it is, for whoever follows the run, or for the next start.
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
   * Catalyst stops (called before its runs are let go or cancelled). With `keepRuns` (a restart) the autopilots stop
   * where they are, writing nothing: the next Catalyst goes on with them. Otherwise they end `cancelled` with their
   * runs. Resolves once every one has stopped.
   */
  stop(options: { keepRuns: boolean }): Promise<void> {
    this.#isLettingGo = options.keepRuns;
    if (!options.keepRuns) for (const running of this.#running.values()) running.isCancelled = true;
    return this.settled();
  }
}

interface DriveFrom {
  /** The first step still to start. */
  index: number;
  costUsd: number;
  /** A step whose run was going when the autopilot was resumed: it ends as that run does. */
  inStep?: { index: number; runId: string };
  /** The first step that failed before a restart (stopOnFailure false): the autopilot still ends failed. */
  failure?: RunError;
}

/** Read through a call: a cancel arrives while the loop awaits. */
function isCancelled(running: Running): boolean {
  return running.isCancelled;
}

function stepStateOf(outcome: string): AutopilotStepState {
  if (outcome === 'completed') return 'completed';
  if (outcome === 'cancelled') return 'cancelled';
  return 'failed';
}

function stepFailure(index: number, why: string, code: RunError['code'] = 'CLI_FAILED'): RunError {
  return { code, message: `Step ${String(index + 1)} failed: ${why}` };
}
