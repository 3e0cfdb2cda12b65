import type { PreviewView } from '@catalyst/protocol';
import { useId } from 'react';
import { formatDateTime, formatRelative } from '../base/format.ts';
import { describePreviewState, sinceVerbOf } from './preview-text.ts';

/**
 * The preview's state in a sentence ("Running at http://127.0.0.1:41234"), announced when it changes. When it
 * began sits outside the live region, so that the minutes going by are not read out.
 */
export function PreviewStatus({ view }: { view: PreviewView }) {
  return (
    <div className="preview-status">
      <p
        className={`preview-state preview-state--${view.state}`}
        role="status"
        aria-live="polite"
        data-testid="preview-state"
      >
        {describePreviewState(view)}
      </p>
      {view.since === undefined ? null : (
        <p className="hint preview-since">
          {sinceVerbOf(view.state)}{' '}
          <time dateTime={view.since} title={formatDateTime(view.since)}>
            {formatRelative(view.since)}
          </time>
        </p>
      )}
      {view.state === 'starting' && view.port !== null ? (
        <p className="hint">Waiting for it to listen on port {view.port}.</p>
      ) : null}
    </div>
  );
}

/** Why it crashed, as far as its last lines tell. */
export function LastOutput({ lines }: { lines: readonly string[] }) {
  const headingId = useId();
  return (
    <section className="preview-last-output" aria-labelledby={headingId}>
      <h3 id={headingId}>Last output</h3>
      {lines.length === 0 ? (
        <p className="muted">It printed nothing.</p>
      ) : (
        <pre className="preview-pre" tabIndex={0} data-testid="preview-last-output">
          {lines.join('\n')}
        </pre>
      )}
    </section>
  );
}
