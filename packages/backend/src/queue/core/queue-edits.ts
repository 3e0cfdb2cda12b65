import { MAX_AUTOPILOT_STEPS } from '@catalyst/protocol';
import {
  budgetSentence,
  isSpent,
  waitingSteps,
  type QueueCommand,
  type QueueInput,
  type QueueState,
  type QueueStep,
} from './queue-state.ts';

/**
 * What a person does to a queue (queue-machine.ts): its waiting steps added, edited, moved, removed, cleared or
 * sent now, each change one `autopilot:queue_changed`; its budget set; a paused queue gone on with; a cancel.
 */

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A transition's working copy of the state (the state it was made from is never changed). */
export type QueueDraft = Mutable<Omit<QueueState, 'steps'>> & { steps: Mutable<QueueStep>[] };

export type QueueEdit = Exclude<
  QueueInput,
  { type: 'next' | 'launched' | 'launch_failed' | 'step_ended' | 'run_before_ended' | 'busy_run_ended' }
>;

const wake: QueueCommand = { type: 'wake' };

export function applyEdit(draft: QueueDraft, input: QueueEdit): QueueCommand[] {
  switch (input.type) {
    case 'add':
      return change(draft, [
        ...waitingSteps(draft.steps),
        { ...input.step, state: 'pending', isLaunching: false },
      ]);
    case 'update':
      return update(draft, input);
    case 'remove': {
      const waiting = waitingSteps(draft.steps);
      if (!waiting.some((step) => step.id === input.stepId)) return stepNotFound(input.stepId);
      return change(
        draft,
        waiting.filter((step) => step.id !== input.stepId),
      );
    }
    case 'clear':
      // Nothing is left for a paused queue to go on with (a step stopped mid-way by its budget neither).
      if (draft.paused !== undefined) draft.isCancelled = true;
      return change(draft, []);
    case 'send_now':
      return sendNow(draft, input.stepId, input.busyRunId);
    case 'stop_run_before':
      draft.sendingNowRunId = input.runId;
      return [{ type: 'cancel_run', runId: input.runId }];
    case 'go_on':
      if (draft.paused === undefined) return [];
      if (!input.oneMoreStep && draft.paused === 'budget' && isSpent(draft)) {
        return [{ type: 'refuse', code: 'BUDGET_EXCEEDED', message: budgetSentence(draft) }];
      }
      return goOn(draft, input.oneMoreStep);
    case 'set_budget': {
      draft.maxBudgetUsd = input.maxBudgetUsd ?? undefined;
      const { ideaId, id: autopilotId } = draft;
      const changed: QueueCommand = {
        type: 'emit',
        event: { type: 'autopilot:budget_changed', ideaId, autopilotId, maxBudgetUsd: input.maxBudgetUsd },
      };
      return draft.paused === 'budget' && !isSpent(draft) ? [changed, ...goOn(draft, false)] : [changed];
    }
    case 'idea_budget_raised':
      return draft.paused === 'budget' ? goOn(draft, false) : [];
    case 'cancel':
      draft.isCancelled = true;
      return [{ type: 'cancel_step_run' }, wake];
    case 'catalyst_stopping':
      // Its runs are cancelled, or let go, by Catalyst's stop itself.
      if (!input.keepRuns) draft.isCancelled = true;
      return [wake];
  }
}

/** A waiting step's text, mode or place among the waiting ones (0: next). */
function update(draft: QueueDraft, input: Extract<QueueEdit, { type: 'update' }>): QueueCommand[] {
  const waiting = waitingSteps(draft.steps);
  const at = waiting.findIndex((step) => step.id === input.stepId);
  const step = waiting[at];
  if (step === undefined) return stepNotFound(input.stepId);
  const edited = {
    ...step,
    ...(input.mode === undefined ? {} : { mode: input.mode }),
    ...(input.message === undefined ? {} : { message: input.message }),
  };
  const rest = waiting.filter((other) => other !== step);
  const position = Math.min(input.position ?? at, rest.length);
  return change(draft, [...rest.slice(0, position), edited, ...rest.slice(position)]);
}

/** Stops the turn that runs now (as Cancel does) and sends this waiting step next; a paused queue goes on. */
function sendNow(draft: QueueDraft, stepId: string, busyRunId: string | undefined): QueueCommand[] {
  const waiting = waitingSteps(draft.steps);
  const step = waiting.find((other) => other.id === stepId);
  if (step === undefined) return stepNotFound(stepId);
  const commands = change(draft, [step, ...waiting.filter((other) => other !== step)]);
  if (busyRunId !== undefined) {
    draft.sendingNowRunId = busyRunId;
    commands.push({ type: 'cancel_run', runId: busyRunId });
  }
  if (draft.paused !== undefined) commands.push(...goOn(draft, draft.paused === 'budget'));
  return commands;
}

export function goOn(draft: QueueDraft, oneMoreStep: boolean): QueueCommand[] {
  draft.paused = undefined;
  draft.oneMoreStep = oneMoreStep;
  const { ideaId, id: autopilotId } = draft;
  const event = {
    type: 'autopilot:resumed' as const,
    ideaId,
    autopilotId,
    ...(oneMoreStep ? { oneMoreStep } : {}),
  };
  return [{ type: 'emit', event }, wake];
}

/** Replaces the waiting steps; the history says so (every tab's view follows). */
function change(draft: QueueDraft, waiting: Mutable<QueueStep>[]): QueueCommand[] {
  if (waiting.length > MAX_AUTOPILOT_STEPS) {
    const message = `A queue holds at most ${String(MAX_AUTOPILOT_STEPS)} waiting messages.`;
    return [{ type: 'refuse', code: 'INVALID_ARGUMENT', message }];
  }
  const before = waitingSteps(draft.steps);
  draft.steps = [...draft.steps.filter((step) => !before.includes(step)), ...waiting];
  // A step whose run is starting is still pending in the history: it stays first there, where it is here.
  const launching = draft.steps.filter((step) => step.isLaunching && step.runId === undefined);
  const { ideaId, id: autopilotId } = draft;
  const pending = [...launching, ...waiting].map(({ id, mode, message }) => ({ id, mode, message }));
  return [{ type: 'emit', event: { type: 'autopilot:queue_changed', ideaId, autopilotId, pending } }, wake];
}

function stepNotFound(stepId: string): QueueCommand[] {
  const message = `No waiting message ${stepId.slice(0, 64)} in this idea’s queue (it may have been sent already).`;
  return [{ type: 'refuse', code: 'QUEUE_STEP_NOT_FOUND', message }];
}
