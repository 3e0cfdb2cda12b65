import type { RelayEvent } from '@catalyst/protocol';

type ClaudeError = Extract<RelayEvent, { type: 'claude:error' }>;

const sourceNames: Record<ClaudeError['source'], string> = {
  stderr: 'Claude wrote to stderr',
  unparsable_line: 'Unreadable output',
  line_too_long: 'Output line too long',
  protocol: 'Protocol error',
};

/** Visible but not an alert: these are part of the record, not something to act on at once. */
export function ErrorLine({ event }: { event: ClaudeError }) {
  return (
    <div className="error-line t-error">
      <span className="t-error__source">{sourceNames[event.source]}:</span>{' '}
      <span className="t-error__text">{event.text}</span>
    </div>
  );
}
