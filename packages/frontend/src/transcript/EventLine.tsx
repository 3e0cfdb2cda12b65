import type { RelayEvent } from '@catalyst/protocol';
import { describeCliMessage } from './describe-cli-message.ts';
import { describeTaskMessage, isInterruptNote, stoppedWords, useRunOutcome } from './stopped-words.ts';

type ClaudeEvent = Extract<RelayEvent, { type: 'claude:event' }>;

/**
 * Any other CLI message, as one compact line (type/subtype first). A line the person would misread (the CLI's
 * interrupt note, a task's raw line) says what happened in words, the raw line behind a disclosure (issue 31).
 */
export function EventLine({ event }: { event: ClaudeEvent }) {
  const outcome = useRunOutcome(event.runId);
  const raw = describeCliMessage(event.message);
  const words = isInterruptNote(event.message) ? stoppedWords(outcome) : describeTaskMessage(event.message);
  if (words !== undefined) {
    return (
      <details className="event-line t-event t-event--said">
        <summary>{words}</summary>
        <code>{raw}</code>
      </details>
    );
  }
  const isUnknown = event.message.type === 'unknown';
  return (
    <div className={isUnknown ? 'event-line t-event t-event--unknown' : 'event-line t-event'}>{raw}</div>
  );
}
