import type { PreviewView } from '@catalyst/protocol';
import { useId } from 'react';
import type { PreviewControl } from './use-preview.ts';

const NOT_CONFIGURED = 'Save a command and a port below to start the preview.';

/** Start, or Stop and Restart, depending on the state; and the link that opens the running preview. */
export function PreviewActions({ preview, view }: { preview: PreviewControl; view: PreviewView }) {
  const reasonId = useId();
  const isConfigured = view.command !== null && view.port !== null;
  const isBusy = preview.busy !== undefined;
  const isUp = view.state === 'starting' || view.state === 'running';
  return (
    <>
      <div className="actions preview-actions">
        {isUp ? (
          <>
            <button type="button" disabled={isBusy} data-testid="preview-stop" onClick={preview.stop}>
              {preview.busy === 'stop' ? 'Stopping…' : 'Stop'}
            </button>
            <button type="button" disabled={isBusy} data-testid="preview-restart" onClick={preview.restart}>
              {preview.busy === 'restart' ? 'Restarting…' : 'Restart'}
            </button>
          </>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={isBusy || !isConfigured}
            aria-describedby={isConfigured ? undefined : reasonId}
            data-testid="preview-start"
            onClick={preview.start}
          >
            {preview.busy === 'start' ? 'Starting…' : 'Start'}
          </button>
        )}
        {view.state === 'running' && view.url !== undefined ? (
          <OpenPreviewLink url={view.url} preview={preview} />
        ) : null}
      </div>
      {isConfigured ? null : (
        <p className="hint" id={reasonId}>
          {NOT_CONFIGURED}
        </p>
      )}
    </>
  );
}

/**
 * The link is good for one visit: once used (a click, a middle click), the view is asked for again at once, so
 * the next click has a fresh one. A plain link, so the browser opens the tab itself (no popup blocker), with no
 * way back to this page (`noopener`).
 */
function OpenPreviewLink({ url, preview }: { url: string; preview: PreviewControl }) {
  return (
    <a
      className="button-link primary"
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="preview-open"
      onClick={preview.refresh}
      onAuxClick={preview.refresh}
    >
      Open preview
    </a>
  );
}
