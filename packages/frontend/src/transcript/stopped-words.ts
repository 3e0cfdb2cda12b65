import type { CliMessage, RelayEvent, RunOutcomeKind } from '@catalyst/protocol';
import { createContext, useContext } from 'react';
import { describeBackgroundTasks } from './describe-cli-message.ts';

/**
 * What the CLI writes when a run is stopped, in the person's words (issue 31). A timed-out or cancelled run left
 * "[Request interrupted by user]" as if the person had typed it, and a step cut short showed the CLI's note to the
 * model ("The user doesn't want to proceed… STOP what you are doing…") as an Error: the page says what happened
 * (timed out, cancelled by you), and keeps the raw text one click away.
 */

const INTERRUPT_PATTERN = /^\[Request interrupted by user[^\]]*\]$/;
/** The CLI's note in a tool result when a call was refused or cut short. */
const REFUSAL_PATTERN = /^The user doesn(?:'|’)t want to proceed with this tool use/;

/** Each ended run's outcome, by run id. */
export const RunOutcomesContext = createContext<ReadonlyMap<string, RunOutcomeKind>>(new Map());

export function useRunOutcome(runId: string | undefined): RunOutcomeKind | undefined {
  const outcomes = useContext(RunOutcomesContext);
  return runId === undefined ? undefined : outcomes.get(runId);
}

export function runOutcomesOf(events: readonly RelayEvent[]): ReadonlyMap<string, RunOutcomeKind> {
  const outcomes = new Map<string, RunOutcomeKind>();
  for (const event of events)
    if (event.type === 'run:ended' && event.runId !== undefined) outcomes.set(event.runId, event.outcome);
  return outcomes;
}

/** "[Request interrupted by user]", "[Request interrupted by user for tool use]": the CLI's, not the person's. */
export function isInterruptNote(message: CliMessage): boolean {
  if (message.type !== 'user') return false;
  const content = message.message.content;
  const text =
    typeof content === 'string'
      ? content
      : content
          .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : ''))
          .join('');
  return INTERRUPT_PATTERN.test(text.trim());
}

export function isRefusalNote(content: string): boolean {
  return REFUSAL_PATTERN.test(content.trim());
}

/** "Stopped: cancelled by you." — what a person did or what happened to the run, not what the CLI told Claude. */
export function stoppedWords(outcome: RunOutcomeKind | undefined): string {
  switch (outcome) {
    case 'cancelled':
      return 'Stopped: cancelled by you.';
    case 'timed_out':
      return 'Stopped: the run timed out.';
    case 'connection_lost':
      return 'Stopped: the connection to the host was lost.';
    case 'failed':
      return 'Stopped: the run failed.';
    case 'completed':
    case undefined:
      return 'Stopped before it finished.';
  }
}

/** A background task's line (`system/task_*`) in words. */
export function describeTaskMessage(message: CliMessage): string | undefined {
  if (message.type !== 'system') return undefined;
  switch (message.subtype) {
    case 'task_started':
      return `Claude started a task: ${message.description}`;
    case 'task_updated':
      return `A task changed${message.patch.status === undefined ? '' : `: ${message.patch.status}`}`;
    case 'task_notification':
      return `A task ${message.status}: ${message.summary}`;
    case 'background_tasks_changed':
      return message.tasks.length === 0
        ? 'Nothing runs in the background any more.'
        : `Running in the background: ${describeBackgroundTasks(message.tasks)}`;
    case 'init':
    case 'api_retry':
    case 'status':
    case 'thinking_tokens':
    case 'compact_boundary':
      return undefined;
  }
}
