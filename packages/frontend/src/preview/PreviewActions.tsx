import type { PreviewView } from '@catalyst/protocol';
import { useId, type MouseEvent } from 'react';
import { api } from '../base/api.ts';
import type { PreviewControl } from './use-preview.ts';
import { useTabOpener, type TabLink } from './use-tab-opener.ts';

const NOT_CONFIGURED = 'Save a command and a port below to start the preview.';
const NOT_RUNNING = 'The preview is no longer running.';

interface PreviewActionsProps {
  ideaId: string;
  preview: PreviewControl;
  view: PreviewView;
}

/** Start, or Stop and Restart, depending on the state; and the link that opens the running preview. */
export function PreviewActions({ ideaId, preview, view }: PreviewActionsProps) {
  const reasonId = useId();
  const tabs = useTabOpener<'preview'>();
  const isConfigured = view.command !== null && view.port !== null;
  const isBusy = preview.busy !== undefined;
  const isUp = view.state === 'starting' || view.state === 'running';
  const openPreview = () => {
    void tabs.open('preview', () => fetchPreviewLink(ideaId)).finally(preview.refresh);
  };
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
          <OpenPreviewLink
            url={view.url}
            isOpening={tabs.opening !== undefined}
            onOpen={openPreview}
            onMiddleClick={preview.refresh}
          />
        ) : null}
      </div>
      {tabs.error === undefined ? null : (
        <p className="form-error" role="alert">
          {tabs.error}
        </p>
      )}
      {isConfigured ? null : (
        <p className="hint" id={reasonId}>
          {NOT_CONFIGURED}
        </p>
      )}
    </>
  );
}

/** A one-time link to the running preview, asked for now; or why there is none. */
async function fetchPreviewLink(ideaId: string): Promise<TabLink> {
  const fresh = await api.preview(ideaId);
  return fresh.state === 'running' && fresh.url !== undefined ? { url: fresh.url } : { problem: NOT_RUNNING };
}

interface OpenPreviewLinkProps {
  url: string;
  isOpening: boolean;
  onOpen: () => void;
  onMiddleClick: () => void;
}

/**
 * The link is good for one visit and for 60 s only, and polls are far apart in a background tab: the last poll's
 * link may have expired by the time it is clicked. So a click opens the tab itself and sends it to a link asked
 * for then. The href stays the last poll's link for a middle click or a copy; once used, the view is asked for
 * again, so the next has a fresh one.
 */
function OpenPreviewLink({ url, isOpening, onOpen, onMiddleClick }: OpenPreviewLinkProps) {
  return (
    <a
      className="button-link primary"
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      aria-busy={isOpening}
      data-testid="preview-open"
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        event.preventDefault();
        onOpen();
      }}
      onAuxClick={onMiddleClick}
    >
      Open preview
    </a>
  );
}
