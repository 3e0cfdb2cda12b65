import type { RelayEvent } from '@catalyst/protocol';

type NoticeEvent = Extract<RelayEvent, { type: 'run:session_replaced' | 'run:detached' | 'run:attached' }>;

export const SESSION_REPLACED_TEXT =
  "Claude's earlier session for this idea was no longer on the VM; a new one started with a recap.";

export function detachedText(host: string): string {
  return `Connection to ${host} lost: Claude keeps working; reconnecting…`;
}

export function attachedText(host: string): string {
  return `Reconnected to ${host}; the output goes on from where it was.`;
}

/**
 * A line about the run itself rather than Claude's output: a new Claude session started with a recap (the CLI no
 * longer had the idea's conversation), or the connection to the host dropped and came back while Claude went on
 * in its session there, so the person knows why the output paused and that nothing was lost.
 */
export function SessionNotice({ event }: { event: NoticeEvent }) {
  switch (event.type) {
    case 'run:session_replaced':
      return (
        <div className="t-notice" role="note" title={`Earlier session: ${event.previousSessionId}`}>
          {SESSION_REPLACED_TEXT}
        </div>
      );
    case 'run:detached':
      return (
        <div className="t-notice" role="note" title={event.reason}>
          {detachedText(event.host)}
        </div>
      );
    case 'run:attached':
      return (
        <div className="t-notice" role="note">
          {attachedText(event.host)}
        </div>
      );
  }
}
