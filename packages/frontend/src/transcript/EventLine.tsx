import type { RelayEvent } from '@catalyst/protocol';
import { describeCliMessage } from './describe-cli-message.ts';

type ClaudeEvent = Extract<RelayEvent, { type: 'claude:event' }>;

/** Any other CLI message, as one compact line (type/subtype first). */
export function EventLine({ event }: { event: ClaudeEvent }) {
  const isUnknown = event.message.type === 'unknown';
  return (
    <div className={isUnknown ? 'event-line t-event t-event--unknown' : 'event-line t-event'}>
      {describeCliMessage(event.message)}
    </div>
  );
}
