import type {
  AutopilotStepState,
  AutopilotStepView,
  AutopilotView,
  QueuedStep,
  RelayEvent,
} from '@catalyst/protocol';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { SCAN_BYTES } from '../runs/run-views.ts';

/** Autopilots as the REST API shows them (protocol autopilot.ts), folded from an idea's `autopilot:*` events. */

export function autopilotViewsOf(events: readonly RelayEvent[]): AutopilotView[] {
  const views = new Map<string, AutopilotView>();
  for (const event of events) {
    if (event.type === 'autopilot:started') {
      if (!views.has(event.autopilotId)) views.set(event.autopilotId, startedView(event));
      continue;
    }
    if (!('autopilotId' in event)) continue;
    const view = views.get(event.autopilotId);
    if (view === undefined || isEnded(view)) continue;
    switch (event.type) {
      case 'autopilot:ended':
        view.state = event.state;
        view.endedAt = event.ts;
        delete view.paused;
        if (event.error !== undefined) view.error = event.error;
        for (const step of view.steps) if (isWaiting(step.state)) step.state = 'skipped';
        continue;
      case 'autopilot:queue_changed': {
        // The waiting steps come last (steps run in order): they are replaced as a whole.
        const done = view.steps.filter((step) => !isWaiting(step.state) || step.runId !== undefined);
        view.steps = [...done, ...event.pending.map((step, index) => waitingStep(step, done.length + index))];
        continue;
      }
      case 'autopilot:budget_changed':
        if (event.maxBudgetUsd === null) delete view.maxBudgetUsd;
        else view.maxBudgetUsd = event.maxBudgetUsd;
        continue;
      case 'autopilot:paused':
        view.state = 'paused';
        view.paused = { reason: event.reason, message: event.message, at: event.ts };
        continue;
      case 'autopilot:resumed':
        view.state = 'running';
        delete view.paused;
        continue;
      case 'autopilot:step_started':
      case 'autopilot:step_ended':
        break;
    }
    const step = view.steps[event.index];
    if (step === undefined) continue;
    if (event.runId !== undefined) step.runId = event.runId;
    if (event.type === 'autopilot:step_started') {
      view.currentStep = event.index;
      step.state = 'running';
      continue;
    }
    step.state = event.state;
    if (event.result !== undefined) {
      // A step stopped mid-way by its budget and then gone on with: each of its runs' cost counts.
      step.result = event.result;
      view.costUsd += event.result.costUsd;
    }
    if (event.error !== undefined) step.error = event.error;
    else delete step.error;
    if (event.questions !== undefined) {
      const totals = view.questions;
      totals.questionsAsked += event.questions.questionsAsked;
      totals.questionsAnsweredAutomatically += event.questions.questionsAnsweredAutomatically;
      totals.autoAnswerRetries += event.questions.autoAnswerRetries;
      totals.auxiliaryCostUsd += event.questions.auxiliaryCostUsd;
    }
  }
  return [...views.values()];
}

function isEnded(view: AutopilotView): boolean {
  return view.state !== 'running' && view.state !== 'paused';
}

/** Not run yet, or stopped mid-way by its budget (it goes on once resumed). */
export function isWaiting(state: AutopilotStepState): boolean {
  return state === 'pending' || state === 'paused';
}

function waitingStep(step: QueuedStep, index: number): AutopilotStepView {
  return {
    id: step.id ?? `step-${String(index + 1)}`,
    mode: step.mode,
    message: step.message,
    state: 'pending',
  };
}

function startedView(event: Extract<RelayEvent, { type: 'autopilot:started' }>): AutopilotView {
  return {
    id: event.autopilotId,
    ideaId: event.ideaId,
    kind: event.kind ?? 'autopilot',
    state: 'running',
    steps: event.steps.map((step, index) => waitingStep(step, index)),
    currentStep: 0,
    costUsd: 0,
    questions: {
      questionsAsked: 0,
      questionsAnsweredAutomatically: 0,
      autoAnswerRetries: 0,
      auxiliaryCostUsd: 0,
    },
    questionPolicy: event.questionPolicy,
    stopOnFailure: event.stopOnFailure,
    ...(event.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: event.maxBudgetUsd }),
    startedAt: event.ts,
  };
}

const isAutopilotEvent = (event: RelayEvent): boolean => event.type.startsWith('autopilot:');

/** The idea's newest autopilot (or the one named), read backwards until its start. */
export async function readAutopilotView(
  history: IdeaHistory,
  autopilotId?: string,
): Promise<AutopilotView | undefined> {
  const { events } = await history.latest({
    maxEvents: 1_000,
    maxBytes: 16 * 1024 * 1024,
    maxScanBytes: SCAN_BYTES,
    select: (event) =>
      isAutopilotEvent(event) &&
      (autopilotId === undefined || ('autopilotId' in event && event.autopilotId === autopilotId)),
    isOldest: (event) => event.type === 'autopilot:started',
  });
  return autopilotViewsOf(events).at(-1);
}
