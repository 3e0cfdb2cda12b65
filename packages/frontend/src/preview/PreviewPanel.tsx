import type { IdeaView } from '@catalyst/protocol';
import { useEffect, useId, useRef } from 'react';
import { ListeningPorts } from './ListeningPorts.tsx';
import { PreviewActions } from './PreviewActions.tsx';
import { PreviewFrame } from './PreviewFrame.tsx';
import { PreviewLog } from './PreviewLog.tsx';
import { PreviewSettings } from './PreviewSettings.tsx';
import { LastOutput, PreviewStatus } from './PreviewStatus.tsx';
import { usePreview } from './use-preview.ts';

interface PreviewPanelProps {
  /** The element id the toggle names in `aria-controls`. */
  id: string;
  ideaId: string;
  isOpen: boolean;
  /** The idea as a save of the command or port left it. */
  onIdeaChanged: (idea: IdeaView) => void;
}

/**
 * The idea's Preview view (issue 14): the dev server Catalyst runs for the project on its host, the app in a frame
 * while it runs (issue 31), its settings, its output, and the ports the idea's processes listen on. What is inside is mounted only while open, so nothing is
 * asked for (and no poll runs) while it is closed.
 */
export function PreviewPanel({ id, ideaId, isOpen, onIdeaChanged }: PreviewPanelProps) {
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (isOpen) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [isOpen]);
  return (
    <section id={id} ref={ref} className="panel preview" aria-labelledby={headingId} hidden={!isOpen}>
      <h2 id={headingId}>Preview</h2>
      {isOpen ? <PreviewBody ideaId={ideaId} onIdeaChanged={onIdeaChanged} /> : null}
    </section>
  );
}

function PreviewBody({ ideaId, onIdeaChanged }: { ideaId: string; onIdeaChanged: (idea: IdeaView) => void }) {
  const preview = usePreview(ideaId, onIdeaChanged);
  const { view } = preview;
  return (
    <>
      {view === undefined && preview.loadError === undefined ? <p className="muted">Loading…</p> : null}
      {view === undefined ? null : <PreviewStatus view={view} />}
      <ErrorLine message={preview.loadError} />
      <ErrorLine message={preview.actionError} />
      {view === undefined ? null : (
        <>
          <PreviewActions ideaId={ideaId} preview={preview} view={view} />
          {view.state === 'running' ? (
            <PreviewFrame key={view.origin} ideaId={ideaId} view={view} onFrameLoad={preview.refresh} />
          ) : null}
          {view.state === 'crashed' ? <LastOutput lines={view.lastOutput ?? []} /> : null}
          <PreviewSettings view={view} isBusy={preview.busy !== undefined} onSave={preview.save} />
          <PreviewLog ideaId={ideaId} view={view} version={preview.version} />
        </>
      )}
      <ListeningPorts
        ideaId={ideaId}
        waitingOn={view?.state === 'starting' ? view.port : null}
        onUsePort={(port) => {
          const command = view?.command;
          if (command === undefined || command === null) return;
          void preview.save({ previewCommand: command, previewPort: port }).then((isSaved) => {
            if (isSaved) preview.restart();
          });
        }}
      />
    </>
  );
}

/** The API's sentence for what went wrong. */
function ErrorLine({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}

/** Opens and closes the Preview view, beside the idea's other actions. */
export function PreviewToggle({
  panelId,
  isOpen,
  onToggle,
}: {
  panelId: string;
  isOpen: boolean;
  onToggle: () => void;
}) {
  return (
    <button type="button" aria-expanded={isOpen} aria-controls={panelId} onClick={onToggle}>
      Preview
    </button>
  );
}
