import type {
  AutopilotStepState,
  AutopilotView,
  ErrorCode,
  PauseReason,
  QueueKind,
  QueuedStep,
  QuestionPolicy,
  QuestionTotals,
  RelayEventDraft,
  RunMode,
  RunOutcomeKind,
} from '@catalyst/protocol';
import type { RunEnding, RunError } from '../../runs/core/run-ending.ts';

/**
 * What the queue's state machine (queue-machine.ts) holds and what goes in and out of it: the contract with its
 * driver (queue/autopilots.ts), which feeds it what happened and what a person asked, and carries out the
 * commands it returns, in order. Nothing here is ever changed: each input gives a new state.
 *
 * Driver contract:
 * - `emit`: append the draft to the idea's history. `wake`: the drive loop's wait (`wait`, `wait_until_free`)
 *   ends and it asks `next` again (a wake with nobody waiting is nothing).
 * - `cancel_step_run`: cancel the run of the queue's step in flight, if one is. `cancel_run`: cancel the run of
 *   that id that holds the idea now (the queue's step's, or a person's).
 * - `refuse` comes alone and changes nothing: answer the person's request with that error.
 * - The moves, at most one and last: what the drive loop does next. `wait` until a `wake`; `wait_until_free`
 *   until a `wake` or the idea's place is free (then `busy_run_ended` if the run it waited for has gone);
 *   `launch` the step (then `launched` or `launch_failed`, then its run's `step_ended`); `end`: clear the queue's
 *   mark in meta.json, free the idea, then append `event` (how it ended is decided by then: a cancel that comes
 *   meanwhile changes nothing of it). No move: ask `next` again.
 * - What Catalyst's letting go of its runs (a restart) does is the driver's alone: the loop stops where it is,
 *   feeding nothing more, and the next Catalyst goes on from the history (`resumedQueue`).
 */

/** The message a step stopped mid-way by its budget goes on with, in its session. */
export const CONTINUE_MESSAGE = 'Continue where you stopped.';

export interface QueueStep {
  readonly id: string;
  readonly mode: RunMode;
  readonly message: string;
  readonly state: AutopilotStepState;
  readonly runId?: string;
  /** Its run is starting: no longer editable, not yet `running` in the history (it stays first in `pending`). */
  readonly isLaunching: boolean;
}

export interface QueueState {
  readonly ideaId: string;
  readonly id: string;
  readonly kind: QueueKind;
  readonly steps: readonly QueueStep[];
  /** An autopilot's own policy for its runs; a plain queue's runs follow the idea's. */
  readonly questionPolicy: QuestionPolicy | undefined;
  readonly stopOnFailure: boolean;
  readonly maxBudgetUsd: number | undefined;
  readonly costUsd: number;
  /** Waits for a person; the reason says why. */
  readonly paused: PauseReason | undefined;
  readonly isCancelled: boolean;
  /** One step may run past the budget (a person's "run one more step"). */
  readonly oneMoreStep: boolean;
  /** The run "send now" stopped: its end neither pauses nor stops the queue. */
  readonly sendingNowRunId: string | undefined;
  /** The first step that failed: an autopilot that goes on past it still ends `failed`. */
  readonly failure: RunError | undefined;
  /** Its loop is over (writing its end): a message that comes now begins a new queue. */
  readonly isEnding: boolean;
}

/** The cap and policy a step's run is launched with (the service's `RunOverrides`). */
export interface QueueRunOverrides {
  questionPolicy?: QuestionPolicy;
  budgetCap?: { key: string; remainingUsd: number };
  nextMode?: RunMode | undefined;
}

export type QueueInput =
  /** The drive loop asks what to do now; `isIdeaBusy`: a run (or a delete's or restore's claim) holds the idea. */
  | { type: 'next'; isIdeaBusy: boolean }
  | { type: 'launched'; runId: string }
  | { type: 'launch_failed'; error: RunError; isIdeaBusy: boolean }
  | { type: 'step_ended'; runId: string; ending: RunEnding; questions?: QuestionTotals | undefined }
  /** The person's run the queue began behind has ended. */
  | { type: 'run_before_ended'; runId: string; outcome: RunOutcomeKind }
  /** A run the loop waited for (`wait_until_free`) no longer holds the idea. */
  | { type: 'busy_run_ended'; runId: string }
  | { type: 'add'; step: { id: string; mode: RunMode; message: string } }
  | {
      type: 'update';
      stepId: string;
      mode?: RunMode | undefined;
      message?: string | undefined;
      position?: number | undefined;
    }
  | { type: 'remove'; stepId: string }
  | { type: 'clear' }
  /** `busyRunId`: the run that holds the idea now (the queue's step's, or a person's), stopped for this step. */
  | { type: 'send_now'; stepId: string; busyRunId: string | undefined }
  /** A new queue's first message sent now: the person's run it would have waited for is stopped. */
  | { type: 'stop_run_before'; runId: string }
  | { type: 'go_on'; oneMoreStep: boolean }
  | { type: 'set_budget'; maxBudgetUsd: number | null }
  /** The idea's own budget was raised and now lets a step start. */
  | { type: 'idea_budget_raised' }
  | { type: 'cancel' }
  /** Catalyst stops; `keepRuns` (a restart): the queue stops where it is, to go on in the next Catalyst. */
  | { type: 'catalyst_stopping'; keepRuns: boolean };

export type QueueMove =
  | { type: 'wait' }
  | { type: 'wait_until_free' }
  | { type: 'launch'; mode: RunMode; message: string; overrides: QueueRunOverrides }
  | { type: 'end'; event: RelayEventDraft };

export type QueueCommand =
  | { type: 'emit'; event: RelayEventDraft }
  | { type: 'cancel_step_run' }
  | { type: 'cancel_run'; runId: string }
  | { type: 'wake' }
  | { type: 'refuse'; code: ErrorCode; message: string }
  | QueueMove;

export interface QueueTransition {
  state: QueueState;
  commands: QueueCommand[];
}

/** What a new queue is made of; its steps carry their ids. */
export interface QueueSpec {
  ideaId: string;
  id: string;
  kind: QueueKind;
  steps: (QueuedStep & { id: string })[];
  questionPolicy: QuestionPolicy | undefined;
  stopOnFailure: boolean;
  maxBudgetUsd: number | undefined;
}

/** A new queue, and its `autopilot:started` (`shownPolicy`: what a plain queue says it follows, the idea's). */
export function newQueue(
  spec: QueueSpec,
  shownPolicy: QuestionPolicy,
): { state: QueueState; event: RelayEventDraft } {
  const { ideaId, id, kind, steps, stopOnFailure, maxBudgetUsd } = spec;
  return {
    state: {
      ...fresh,
      ideaId,
      id,
      kind,
      steps: steps.map(({ id: stepId, mode, message }) => ({
        id: stepId,
        mode,
        message,
        state: 'pending',
        isLaunching: false,
      })),
      questionPolicy: spec.questionPolicy,
      stopOnFailure,
      maxBudgetUsd,
      costUsd: 0,
      paused: undefined,
      failure: undefined,
    },
    event: {
      type: 'autopilot:started',
      ideaId,
      autopilotId: id,
      ...(kind === 'queue' ? { kind: 'queue' as const } : {}),
      steps,
      questionPolicy: shownPolicy,
      stopOnFailure,
      ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
    },
  };
}

/**
 * A queue an earlier Catalyst left running or paused, from its view; `inStepRunId`: the run of the step it was in
 * (that step ends as the run does). An autopilot whose step failed before (stopOnFailure off) still ends failed.
 */
export function resumedQueue(
  ideaId: string,
  view: AutopilotView,
): { state: QueueState; inStepRunId: string | undefined } {
  const failedAt = view.steps.findIndex((step) => step.state === 'failed');
  const failed = view.steps[failedAt];
  return {
    state: {
      ...fresh,
      ideaId,
      id: view.id,
      kind: view.kind,
      steps: view.steps.map((step) => ({
        id: step.id,
        mode: step.mode,
        message: step.message,
        state: step.state,
        ...(step.runId === undefined ? {} : { runId: step.runId }),
        isLaunching: false,
      })),
      questionPolicy: view.kind === 'autopilot' ? view.questionPolicy : undefined,
      stopOnFailure: view.stopOnFailure,
      maxBudgetUsd: view.maxBudgetUsd,
      costUsd: view.costUsd,
      paused: view.paused?.reason,
      failure:
        failed === undefined || view.kind === 'queue'
          ? undefined
          : stepFailure(failedAt, failed.error?.message ?? 'it did not complete', failed.error?.code),
    },
    inStepRunId: view.steps.find((step) => step.state === 'running')?.runId,
  };
}

const fresh = {
  isCancelled: false,
  oneMoreStep: false,
  sendingNowRunId: undefined,
  isEnding: false,
} as const;

/** Not run yet, or stopped mid-way by its budget (it goes on once resumed). */
export function isWaitingState(state: AutopilotStepState): boolean {
  return state === 'pending' || state === 'paused';
}

/** The steps not started yet, a person's to edit (a step stopped mid-way by its budget is not: it goes on first). */
export function waitingSteps<Step extends QueueStep>(steps: readonly Step[]): Step[] {
  return steps.filter((step) => step.state === 'pending' && step.runId === undefined && !step.isLaunching);
}

/** A step waits to be sent (or to go on, stopped mid-way by its budget). */
export function hasWaiting(state: QueueState): boolean {
  return state.steps.some((step) => isWaitingState(step.state) && !step.isLaunching);
}

export function isSpent(state: QueueState): boolean {
  return state.maxBudgetUsd !== undefined && state.costUsd >= state.maxBudgetUsd;
}

/** Paused by a budget that is not its own spent one: the idea's budget, once raised, may let it go on. */
export function mayGoOnOnceIdeaBudgetAllows(state: QueueState): boolean {
  return state.paused === 'budget' && !isSpent(state);
}

export function budgetSentence(state: QueueState): string {
  const spent = `$${state.costUsd.toFixed(4)}`;
  return state.maxBudgetUsd === undefined
    ? `It has spent ${spent}; raise the budget to go on.`
    : `It has spent ${spent} of its $${state.maxBudgetUsd.toFixed(4)} budget; raise it, or run one more step, to go on.`;
}

export function stepWords(index: number): string {
  return `Step ${String(index + 1)}`;
}

export function stepFailure(index: number, why: string, code: ErrorCode = 'CLI_FAILED'): RunError {
  return { code, message: `${stepWords(index)} failed: ${why}` };
}
