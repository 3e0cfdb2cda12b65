import { MAX_FILE_TEXT_BYTES, type FileContentResponse } from '@catalyst/protocol';
import { useEffect, useRef } from 'react';
import { api } from '../base/api.ts';
import { formatSize } from '../base/format.ts';
import { useFetched } from '../base/use-fetched.ts';
import { shortCommit } from '../checkpoints/checkpoint-text.ts';
import { CodeLines } from './CodeLines.tsx';
import { FileHistory } from './FileHistory.tsx';
import type { FileSelection } from './use-files-view.ts';

interface FileViewerProps {
  ideaId: string;
  selection: FileSelection | undefined;
  version: string;
  onSelect: (selection: FileSelection) => void;
  /** Grows when a file is opened from elsewhere: the viewer takes the focus. */
  focusRequest: number;
}

/** The file chosen in the tree or from a tool card: a region named "File <path>", its text, then its history. */
export function FileViewer({ ideaId, selection, version, onSelect, focusRequest }: FileViewerProps) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (focusRequest > 0) ref.current?.focus();
  }, [focusRequest]);
  return (
    <section
      ref={ref}
      className="files-viewer"
      aria-label={selection === undefined ? 'File' : `File ${selection.path}`}
      tabIndex={-1}
    >
      {selection === undefined ? (
        <p className="files-note muted">Choose a file to see it here.</p>
      ) : (
        <>
          <h3 className="files-viewer__path">{selection.path}</h3>
          <FileContent ideaId={ideaId} selection={selection} version={version} />
          <FileHistory ideaId={ideaId} selection={selection} version={version} onSelect={onSelect} />
        </>
      )}
    </section>
  );
}

function FileContent({
  ideaId,
  selection,
  version,
}: {
  ideaId: string;
  selection: FileSelection;
  version: string;
}) {
  const { path, at } = selection;
  // A file at a checkpoint never changes; the current one may after every build.
  const key = `${ideaId}\n${path}\n${at ?? `now\n${version}`}`;
  const fetched = useFetched(key, () => api.fileContent(ideaId, path, at));
  if (fetched.kind === 'loading') {
    return (
      <p className="files-note muted" role="status">
        Loading…
      </p>
    );
  }
  if (fetched.kind === 'failed') {
    return (
      <p className="files-note form-error" role="alert">
        {fetched.message}
      </p>
    );
  }
  const content = fetched.value;
  return (
    <>
      <p className="files-viewer__meta muted">
        {at === undefined ? 'Current version' : `At checkpoint ${shortCommit(at)}`} ·{' '}
        {formatSize(content.size)}
      </p>
      {'text' in content ? (
        <CodeLines path={path} text={content.text} />
      ) : (
        <p className="files-note">{describeUnshown(content)}</p>
      )}
    </>
  );
}

/** Why a file's contents are not shown, with its size. */
export function describeUnshown(content: Exclude<FileContentResponse, { text: string }>): string {
  const size = formatSize(content.size);
  return 'tooLarge' in content
    ? `This file is ${size}: too large to show here (at most ${formatSize(MAX_FILE_TEXT_BYTES)}).`
    : `This is a binary file (${size}): it cannot be shown as text.`;
}
