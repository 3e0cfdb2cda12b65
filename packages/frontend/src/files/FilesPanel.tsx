import { useEffect, useId, useRef, useState } from 'react';
import { FileTree } from './FileTree.tsx';
import { FileViewer } from './FileViewer.tsx';
import type { FilesView } from './use-files-view.ts';

interface FilesPanelProps {
  /** The element id the toggle names in `aria-controls`. */
  id: string;
  ideaId: string;
  view: FilesView;
  /** Changes when the project changed (a checkpoint was made): what is shown is fetched again. */
  projectVersion: number;
}

/**
 * The idea's Files view (issue 13): the project's tree, and the chosen file with its history. Nothing is fetched
 * before it is first opened; after that it stays mounted while closed (`hidden`), so it opens as it was left.
 */
export function FilesPanel({ id, ideaId, view, projectVersion }: FilesPanelProps) {
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  const [refreshes, setRefreshes] = useState(0);
  const [hasBeenOpen, setHasBeenOpen] = useState(view.isOpen);
  if (view.isOpen && !hasBeenOpen) setHasBeenOpen(true);
  const version = `${String(projectVersion)}.${String(refreshes)}`;

  useEffect(() => {
    if (view.isOpen) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [view.isOpen]);

  return (
    <section id={id} ref={ref} className="panel files" aria-labelledby={headingId} hidden={!view.isOpen}>
      <div className="files-head">
        <h2 id={headingId}>Files</h2>
        <button
          type="button"
          onClick={() => {
            setRefreshes((count) => count + 1);
          }}
        >
          Refresh
        </button>
      </div>
      {hasBeenOpen ? (
        <div className="files-body">
          <FileTree ideaId={ideaId} version={version} view={view} />
          <FileViewer
            ideaId={ideaId}
            selection={view.selected}
            version={version}
            onSelect={view.select}
            focusRequest={view.openedFromLink}
          />
        </div>
      ) : null}
    </section>
  );
}

/** Opens and closes the Files view, beside the idea's other actions. */
export function FilesToggle({ panelId, view }: { panelId: string; view: FilesView }) {
  return (
    <button type="button" aria-expanded={view.isOpen} aria-controls={panelId} onClick={view.toggle}>
      Files
    </button>
  );
}
