import type { AutopilotState, AutopilotStepState, PauseReason } from '@catalyst/protocol';
import type { RunEnding, RunError } from '../../runs/core/run-ending.ts';
import { applyEdit, type QueueDraft } from './queue-edits.ts';
import {
  budgetSentence,
  CONTINUE_MESSAGE,
  hasWaiting,
  isWaitingState,
  stepFailure,
  stepWords,
  type QueueCommand,
  type QueueInput,
  type QueueState,
  type QueueTransition,
} from './queue-state.ts';

export * from './queue-state.ts';

/**
 * The pure state machine of an idea's queue (issues 12 and 30; the contract with its driver is in
 * queue-state.ts): which step runs next and with what, when the queue waits for a person and why (a step that
 * failed or was stopped, its budget spent before a step or the CLI's own budget stop inside one), and how it ends.
 * A plain queue pauses where an autopilot stops: on a failed or stopped step, while more waits.
 */
export function handleQueue(state: QueueState, input: QueueInput): QueueTransition {
  const draft: QueueDraft = { ...state, steps: state.steps.map((step) => ({ ...step })) };
  const commands = dispatch(draft, input);
  // A refusal changes nothing.
  return commands[0]?.type === 'refuse' ? { state, commands } : { state: draft, commands };
}

function dispatch(draft: QueueDraft, input: QueueInput): QueueCommand[] {
  switch (input.type) {
    case 'next':
      return next(draft, input.isIdeaBusy);
    case 'launched':
      return onLaunched(draft, input.runId);
    case 'launch_failed':
      return onLaunchFailed(draft, input.error, input.isIdeaBusy);
    case 'step_ended':
      return onStepEnded(draft, input);
    case 'run_before_ended':
      return onRunBeforeEnded(draft, input.runId, input.outcome);
    case 'busy_run_ended':
      // Its end was "send now"'s doing: that says nothing about a later step's cancel.
      takeSendingNow(draft, input.runId);
      return [];
    case 'add':
    case 'update':
    case 'remove':
    case 'clear':
    case 'send_now':
    case 'stop_run_before':
    case 'go_on':
    case 'set_budget':
    case 'idea_budget_raised':
    case 'cancel':
    case 'catalyst_stopping':
      return applyEdit(draft, input);
  }
}

/** What the drive loop does now. */
function next(draft: QueueDraft, isIdeaBusy: boolean): QueueCommand[] {
  if (draft.isCancelled) return end(draft);
  if (draft.paused !== undefined) return [{ type: 'wait' }];
  // A person's run (allowed while the queue waited): the next step follows once it has ended.
  if (isIdeaBusy) return [{ type: 'wait_until_free' }];
  const index = draft.steps.findIndex((candidate) => isWaitingState(candidate.state));
  const step = draft.steps[index];
  if (step === undefined) return end(draft);
  const left = draft.maxBudgetUsd === undefined ? undefined : draft.maxBudgetUsd - draft.costUsd;
  if (left !== undefined && left <= 0 && !draft.oneMoreStep) {
    return pause(
      draft,
      'budget',
      `Paused before ${stepWords(index).toLowerCase()}: ${budgetSentence(draft)}`,
    );
  }
  // From here it is no longer a person's to edit, move or remove: it is being sent.
  step.isLaunching = true;
  const following = draft.steps.slice(index + 1).find((other) => isWaitingState(other.state));
  return [
    {
      type: 'launch',
      mode: step.mode,
      message: step.state === 'paused' ? CONTINUE_MESSAGE : step.message,
      overrides: {
        ...(draft.questionPolicy === undefined ? {} : { questionPolicy: draft.questionPolicy }),
        ...(left === undefined || draft.oneMoreStep
          ? {}
          : { budgetCap: { key: `${draft.id}/${String(draft.maxBudgetUsd)}`, remainingUsd: left } }),
        // A process of the other mode ends with this step's turn, not when the next step starts.
        ...(following === undefined ? {} : { nextMode: following.mode }),
      },
    },
  ];
}

function onLaunched(draft: QueueDraft, runId: string): QueueCommand[] {
  const index = draft.steps.findIndex((step) => step.isLaunching);
  const step = draft.steps[index];
  if (step === undefined) return [];
  draft.oneMoreStep = false;
  step.isLaunching = false;
  step.state = 'running';
  step.runId = runId;
  const { ideaId, id: autopilotId } = draft;
  return [{ type: 'emit', event: { type: 'autopilot:step_started', ideaId, runId, autopilotId, index } }];
}

function onLaunchFailed(draft: QueueDraft, error: RunError, isIdeaBusy: boolean): QueueCommand[] {
  const index = draft.steps.findIndex((step) => step.isLaunching);
  const step = draft.steps[index];
  if (step === undefined) return [];
  step.isLaunching = false;
  // A person's run began meanwhile: the loop waits for it.
  if (error.code === 'RUN_IN_PROGRESS' && isIdeaBusy) return [];
  // The idea's own budget is spent: the queue waits until it is raised.
  if (error.code === 'BUDGET_EXCEEDED') return pause(draft, 'budget', error.message);
  if (draft.kind === 'queue') {
    return pause(draft, 'failed', `${stepWords(index)} could not start: ${error.message}`);
  }
  if (error.code === 'RUN_IN_PROGRESS') return [];
  step.state = 'failed';
  const { ideaId, id: autopilotId } = draft;
  const ended: QueueCommand = {
    type: 'emit',
    event: { type: 'autopilot:step_ended', ideaId, autopilotId, index, state: 'failed', error },
  };
  fail(draft, stepFailure(index, error.message, error.code));
  return draft.stopOnFailure ? [ended, ...end(draft)] : [ended];
}

/** Records how a step's run ended, and what the queue does about it. */
function onStepEnded(draft: QueueDraft, input: Extract<QueueInput, { type: 'step_ended' }>): QueueCommand[] {
  const { runId, ending } = input;
  const index = draft.steps.findIndex((step) => step.runId === runId);
  const step = draft.steps[index];
  if (step === undefined) return [];
  draft.costUsd += ending.result?.costUsd ?? 0;
  const isBudgetStop = ending.error?.code === 'BUDGET_EXCEEDED';
  const stepState = isBudgetStop ? 'paused' : stepStateOf(ending);
  step.state = stepState;
  const wasSentNow = takeSendingNow(draft, runId);
  const { ideaId, id: autopilotId } = draft;
  const recorded: QueueCommand = {
    type: 'emit',
    event: {
      type: 'autopilot:step_ended',
      ideaId,
      runId,
      autopilotId,
      index,
      state: stepState,
      ...(ending.result === undefined ? {} : { result: ending.result }),
      ...(ending.error === undefined ? {} : { error: ending.error }),
      ...(input.questions === undefined ? {} : { questions: input.questions }),
    },
  };
  return [recorded, ...afterStep(draft, { index, state: stepState, ending, wasSentNow })];
}

function afterStep(
  draft: QueueDraft,
  step: { index: number; state: AutopilotStepState; ending: RunEnding; wasSentNow: boolean },
): QueueCommand[] {
  const { index, ending } = step;
  if (step.state === 'completed') return [];
  // The CLI's own budget stop: the step goes on once the budget is raised.
  if (step.state === 'paused') {
    return pause(draft, 'budget', `${stepWords(index)} stopped at its budget. ${budgetSentence(draft)}`);
  }
  if (step.state === 'cancelled') {
    if (step.wasSentNow) return [];
    // Stopped by a person (the page's Stop on the step's run): an autopilot stops too, a queue waits (and ends
    // when nothing waits).
    if (draft.kind === 'autopilot' || !hasWaiting(draft)) {
      draft.isCancelled = true;
      return end(draft);
    }
    return pause(draft, 'cancelled', `You stopped ${stepWords(index).toLowerCase()}; the rest waits.`);
  }
  const why = ending.error?.message ?? `it ended ${ending.outcome}`;
  if (draft.kind === 'queue' && hasWaiting(draft)) {
    return pause(draft, 'failed', `${stepWords(index)} failed: ${why} The rest waits.`);
  }
  fail(draft, stepFailure(index, why, ending.error?.code));
  return draft.kind === 'autopilot' && !draft.stopOnFailure ? [] : end(draft);
}

/** A person's run was going when the queue began: the queue goes on once it has ended well. */
function onRunBeforeEnded(draft: QueueDraft, runId: string, outcome: RunEnding['outcome']): QueueCommand[] {
  const wasSentNow = takeSendingNow(draft, runId);
  if (outcome === 'completed' || wasSentNow || draft.isCancelled || !hasWaiting(draft)) return [];
  return outcome === 'cancelled'
    ? pause(draft, 'cancelled', 'You stopped the run before the queue; the queue waits.')
    : pause(draft, 'failed', `The run before the queue ended ${outcome}; the queue waits.`);
}

function pause(draft: QueueDraft, reason: PauseReason, message: string): QueueCommand[] {
  draft.paused = reason;
  const { ideaId, id: autopilotId } = draft;
  return [{ type: 'emit', event: { type: 'autopilot:paused', ideaId, autopilotId, reason, message } }];
}

function fail(draft: QueueDraft, error: RunError): void {
  draft.failure ??= error;
}

/** The loop is over: a cancel wins, then the first failure. */
function end(draft: QueueDraft): QueueCommand[] {
  draft.isEnding = true;
  const { failure } = draft;
  let state: AutopilotState = failure === undefined ? 'completed' : 'failed';
  if (draft.isCancelled) state = 'cancelled';
  const event = {
    type: 'autopilot:ended' as const,
    ideaId: draft.ideaId,
    autopilotId: draft.id,
    state,
    costUsd: draft.costUsd,
    ...(state === 'failed' && failure !== undefined ? { error: failure } : {}),
  };
  return [{ type: 'end', event }];
}

/** Whether "send now" stopped this run; forgotten once that run has ended, whichever way. */
function takeSendingNow(draft: QueueDraft, runId: string): boolean {
  if (draft.sendingNowRunId !== runId) return false;
  draft.sendingNowRunId = undefined;
  return true;
}

function stepStateOf(ending: RunEnding): AutopilotStepState {
  if (ending.outcome === 'completed') return 'completed';
  if (ending.outcome === 'cancelled') return 'cancelled';
  return 'failed';
}
