import type { RelayEvent } from '@catalyst/protocol';

type SessionReplaced = Extract<RelayEvent, { type: 'run:session_replaced' }>;

export const SESSION_REPLACED_TEXT =
  "Claude's earlier session for this idea was no longer on the VM; a new one started with a recap.";

/**
 * Where a run had to start a new Claude session (the CLI no longer had the idea's conversation): Claude was given
 * a recap of the idea and the messages so far, so the person knows why Claude may recall less than before.
 */
export function SessionNotice({ event }: { event: SessionReplaced }) {
  return (
    <div className="t-notice" role="note" title={`Earlier session: ${event.previousSessionId}`}>
      {SESSION_REPLACED_TEXT}
    </div>
  );
}
