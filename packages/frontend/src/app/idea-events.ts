import type { QueuedStep, RelayEvent, RunMode } from '@catalyst/protocol';

/** What the idea's page reads from its history beside the transcript: a budget stop, a queue, a message's fate. */

/**
 * The newest run, when the CLI stopped it at the idea's budget and it was a person's run (an autopilot's or a
 * queue's step pauses its queue instead, which the queue panel shows).
 */
export function findBudgetStop(events: readonly RelayEvent[]): { runId: string; mode: RunMode } | undefined {
  const ended = events.findLast((event) => event.type === 'run:ended');
  if (ended?.type !== 'run:ended' || ended.runId === undefined) return undefined;
  if (ended.error?.code !== 'BUDGET_EXCEEDED') return undefined;
  const { runId } = ended;
  if (events.some((event) => event.type === 'autopilot:step_started' && event.runId === runId))
    return undefined;
  const started = events.find((event) => event.type === 'run:started' && event.runId === runId);
  return started?.type === 'run:started' ? { runId, mode: started.mode } : undefined;
}

/** The event that says a message sent went out: its run started, or it waits in the queue (issue 30). */
export function carriesMessage(event: RelayEvent, message: string, known: ReadonlySet<string>): boolean {
  if (event.type === 'run:started') return event.message === message;
  // A queued message is a new step, last: not one already there with the same words, moved or edited.
  const last = queuedStepsOf(event).at(-1);
  return last?.message === message && (last.id === undefined || !known.has(last.id));
}

/** The waiting steps an event names: a queue's first, or its waiting ones after a change; none for any other. */
function queuedStepsOf(event: RelayEvent): readonly QueuedStep[] {
  if (event.type === 'autopilot:started') return event.steps;
  if (event.type === 'autopilot:queue_changed') return event.pending;
  return [];
}

/** The ids of the queued steps the history held up to `seq`. */
export function stepIdsUpTo(events: readonly RelayEvent[], seq: number): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.seq > seq) break;
    for (const step of queuedStepsOf(event)) if (step.id !== undefined) ids.add(step.id);
  }
  return ids;
}

/**
 * From the history itself, so a view that failed to load cannot mislead the composer: a queue runs (a message
 * sent now goes after it), not paused (a message sent now runs at once) nor ended.
 */
export function isAutopilotRunning(events: readonly RelayEvent[]): boolean {
  const last = events.findLast(
    (event) =>
      event.type === 'autopilot:started' ||
      event.type === 'autopilot:paused' ||
      event.type === 'autopilot:resumed' ||
      event.type === 'autopilot:ended',
  );
  return last?.type === 'autopilot:started' || last?.type === 'autopilot:resumed';
}
