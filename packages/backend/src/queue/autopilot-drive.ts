import type { QuestionTotals } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { handleQueue, type QueueInput, type QueueMove, type QueueState } from './core/queue-machine.ts';
import type { RunEnding, RunError } from '../runs/core/run-ending.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ActiveRun } from '../runs/active-run.ts';
import { readRunView } from '../runs/run-views.ts';
import type { AutopilotsOptions } from './autopilots.ts';

/**
 * A queue's drive loop (autopilots.ts): the effects of what its state machine (queue/core/queue-machine.ts) decides.
 * It launches each step's run, waits for its end, for a person while the queue is paused, or for a person's run
 * to free the idea, and writes the queue's end. It stops where it is, writing nothing, when Catalyst lets go of
 * its runs (a restart): the next Catalyst goes on with the queue.
 */

export interface RunningQueue {
  readonly ideaId: string;
  state: QueueState;
  readonly history: IdeaHistory;
  /** The run of the step in flight. */
  current: ActiveRun | undefined;
  /** Resolves the wait the drive loop is in (a pause, a person's run): something changed. */
  wake: () => void;
  done: Promise<void>;
}

export function runningQueue(state: QueueState, history: IdeaHistory): RunningQueue {
  return {
    ideaId: state.ideaId,
    state,
    history,
    current: undefined,
    wake: () => undefined,
    done: Promise.resolve(),
  };
}

type QueueOptions = Pick<AutopilotsOptions, 'launch' | 'activeRun' | 'whenFree' | 'mark'>;

export interface DriveContext {
  options: QueueOptions;
  /** Read through a call: Catalyst may let go while the loop awaits. */
  hasLetGo(): boolean;
  /** The idea is free of the queue (before its end is seen, as a run's is). */
  release(running: RunningQueue): void;
}

export interface DriveFrom {
  /** The run of the step a restart interrupted: that step ends as the run does. */
  inStepRunId?: string;
  /** A person's run going when the queue began: the queue waits for it (and pauses if it fails). */
  waitFor?: ActiveRun;
}

/**
 * Feeds the queue's machine one input and carries out its commands, in order; a refusal is thrown. Returns what
 * the drive loop does next, when the input said.
 */
export function applyToQueue(
  running: RunningQueue,
  input: QueueInput,
  options: Pick<AutopilotsOptions, 'activeRun'>,
): QueueMove | undefined {
  const { state, commands } = handleQueue(running.state, input);
  running.state = state;
  let move: QueueMove | undefined;
  for (const command of commands) {
    switch (command.type) {
      case 'refuse':
        throw new CatalystError(command.code, command.message);
      case 'emit':
        running.history.append(command.event);
        break;
      case 'cancel_step_run':
        running.current?.cancel();
        break;
      case 'cancel_run': {
        const busy =
          running.current?.runId === command.runId ? running.current : options.activeRun(running.ideaId);
        if (busy?.runId === command.runId) busy.cancel();
        break;
      }
      case 'wake':
        running.wake();
        break;
      case 'wait':
      case 'wait_until_free':
      case 'launch':
      case 'end':
        move = command;
        break;
    }
  }
  return move;
}

const LET_GO = Symbol('let go');

export async function driveQueue(
  context: DriveContext,
  running: RunningQueue,
  from: DriveFrom,
): Promise<void> {
  const { options } = context;
  const { ideaId } = running;
  const apply = (input: QueueInput) => applyToQueue(running, input, options);
  let move: QueueMove | undefined;
  if (from.inStepRunId !== undefined) {
    const ended = await endInStep(context, running, from.inStepRunId);
    if (ended === undefined) return;
    move = apply(ended);
  }
  if (from.waitFor !== undefined) {
    const ending = await from.waitFor.ended;
    if (context.hasLetGo()) return;
    move = apply({ type: 'run_before_ended', runId: from.waitFor.runId, outcome: ending.outcome });
  }
  while (move?.type !== 'end') {
    if (context.hasLetGo()) return;
    const busy = options.activeRun(ideaId);
    move = apply({ type: 'next', isIdeaBusy: busy !== undefined });
    if (move?.type === 'wait') {
      await nextChange(running);
    } else if (move?.type === 'wait_until_free' && busy !== undefined) {
      await nextChange(running, options.whenFree(ideaId));
      if (options.activeRun(ideaId) !== busy) apply({ type: 'busy_run_ended', runId: busy.runId });
    } else if (move?.type === 'launch') {
      const after = await runStep(context, running, move);
      if (after === LET_GO) return;
      move = after;
    }
  }
  // Free before the end is seen, as a run is: a client acting on autopilot:ended (a second cancel, a new queue)
  // finds none running. meta.json first, so a new queue's mark is never undone by this one's.
  await options.mark(ideaId, undefined);
  context.release(running);
  running.history.append(move.event);
}

/** Launches the step the machine chose and follows its run to its end. */
async function runStep(
  context: DriveContext,
  running: RunningQueue,
  launch: Extract<QueueMove, { type: 'launch' }>,
): Promise<QueueMove | undefined | typeof LET_GO> {
  const { options } = context;
  const { ideaId } = running;
  let run: ActiveRun;
  try {
    run = await options.launch(ideaId, launch.mode, launch.message, launch.overrides);
  } catch (error) {
    if (context.hasLetGo()) return LET_GO;
    const reason: RunError = isCatalystError(error)
      ? { code: error.code, message: error.message }
      : { code: 'INTERNAL', message: 'The step could not start.' };
    const isIdeaBusy = options.activeRun(ideaId) !== undefined;
    return applyToQueue(running, { type: 'launch_failed', error: reason, isIdeaBusy }, options);
  }
  running.current = run;
  applyToQueue(running, { type: 'launched', runId: run.runId }, options);
  // Catalyst began to let go while the step started: the run goes on, and the next Catalyst follows it as this
  // step's run.
  if (context.hasLetGo()) {
    run.detach?.();
    return LET_GO;
  }
  // A cancel that came while the run was starting.
  if (running.state.isCancelled) run.cancel();
  const ending = await run.ended;
  running.current = undefined;
  // Let go (a restart): the run goes on in its session, and the next Catalyst goes on from here.
  if (context.hasLetGo()) return LET_GO;
  const ended = { type: 'step_ended', runId: run.runId, ending, questions: questionsOf(run) } as const;
  return applyToQueue(running, ended, options);
}

/** The step a restart interrupted ends as its run did; undefined when Catalyst lets go, or nobody here follows it. */
async function endInStep(
  context: DriveContext,
  running: RunningQueue,
  runId: string,
): Promise<QueueInput | undefined> {
  const active = context.options.activeRun(running.ideaId);
  const taken = active?.runId === runId ? active : undefined;
  running.current = taken;
  if (taken !== undefined && running.state.isCancelled) taken.cancel();
  const ending = await endingOf(context, running.history, runId, taken);
  running.current = undefined;
  if (ending === undefined) return undefined;
  return { type: 'step_ended', runId, ending, questions: questionsOf(taken) };
}

/**
 * How the run of the step a restart interrupted ended: followed to its end when this Catalyst took it up, read
 * from the history when it ended before; undefined when Catalyst lets go meanwhile.
 */
async function endingOf(
  context: DriveContext,
  history: IdeaHistory,
  runId: string,
  taken: ActiveRun | undefined,
): Promise<RunEnding | undefined> {
  if (taken !== undefined) {
    const ending = await taken.ended;
    return context.hasLetGo() ? undefined : ending;
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

function questionsOf(run: ActiveRun | undefined): QuestionTotals | undefined {
  const stats = run?.prompts?.stats();
  if (stats === undefined) return undefined;
  return {
    questionsAsked: stats.questionsAsked,
    questionsAnsweredAutomatically: stats.questionsAnsweredAutomatically ?? 0,
    autoAnswerRetries: stats.autoAnswerRetries ?? 0,
    auxiliaryCostUsd: stats.auxiliaryCostUsd ?? 0,
  };
}

/** Resolves when something changes for the queue (a person acts on it, a run ends, Catalyst stops). */
function nextChange(running: RunningQueue, also?: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    running.wake = resolve;
    void also?.then(() => {
      resolve();
    });
  });
}
