import type { AutopilotView, RelayEvent } from '@catalyst/protocol';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { SCAN_BYTES } from './run-views.ts';

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
    if (view === undefined) continue;
    if (event.type === 'autopilot:ended') {
      if (view.state !== 'running') continue;
      view.state = event.state;
      view.endedAt = event.ts;
      if (event.error !== undefined) view.error = event.error;
      for (const step of view.steps) if (step.state === 'pending') step.state = 'skipped';
      continue;
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
      step.result = event.result;
      view.costUsd += event.result.costUsd;
    }
    if (event.error !== undefined) step.error = event.error;
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

function startedView(event: Extract<RelayEvent, { type: 'autopilot:started' }>): AutopilotView {
  return {
    id: event.autopilotId,
    ideaId: event.ideaId,
    state: 'running',
    steps: event.steps.map((step) => ({ ...step, state: 'pending' })),
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
