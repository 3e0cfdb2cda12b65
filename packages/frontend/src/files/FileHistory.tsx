import type { CheckpointView } from '@catalyst/protocol';
import { api } from '../base/api.ts';
import { formatDateTime } from '../base/format.ts';
import { useFetched } from '../base/use-fetched.ts';
import { CHECKPOINT_KIND_WORDS, shortCommit } from '../checkpoints/checkpoint-text.ts';
import type { FileSelection } from './use-files-view.ts';

interface FileHistoryProps {
  ideaId: string;
  selection: FileSelection;
  version: string;
  onSelect: (selection: FileSelection) => void;
}

/**
 * The checkpoints that changed a file, newest first, after its current version: each one shows the file as it was
 * then. The list is named "History of <path>"; the entry shown is `aria-current`.
 */
export function FileHistory({ ideaId, selection, version, onSelect }: FileHistoryProps) {
  const { path, at } = selection;
  const fetched = useFetched(`${ideaId}\n${path}\n${version}`, () => api.fileHistory(ideaId, path));
  const checkpoints = fetched.kind === 'loaded' ? fetched.value : [];
  return (
    <div className="files-history">
      <h4>History</h4>
      <ol className="files-history__list" aria-label={`History of ${path}`}>
        <HistoryEntry
          isCurrent={at === undefined}
          onOpen={() => {
            onSelect({ path, at: undefined });
          }}
        >
          Current version
        </HistoryEntry>
        {checkpoints.map((checkpoint) => (
          <HistoryEntry
            key={checkpoint.commit}
            isCurrent={at === checkpoint.commit}
            onOpen={() => {
              onSelect({ path, at: checkpoint.commit });
            }}
          >
            {describeEntry(checkpoint, path)}
          </HistoryEntry>
        ))}
      </ol>
      {fetched.kind === 'loading' ? <p className="muted">Loading the history…</p> : null}
      {fetched.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {fetched.message}
        </p>
      ) : null}
      {fetched.kind === 'loaded' && checkpoints.length === 0 ? (
        <p className="muted">No checkpoint has changed this file yet.</p>
      ) : null}
    </div>
  );
}

function HistoryEntry({
  isCurrent,
  onOpen,
  children,
}: {
  isCurrent: boolean;
  onOpen: () => void;
  children: string;
}) {
  return (
    <li>
      <button
        type="button"
        className="files-history__entry"
        aria-current={isCurrent ? 'true' : undefined}
        onClick={onOpen}
      >
        {children}
      </button>
    </li>
  );
}

/** "a1b2c3d · After a build · 12 Jan 2025, 14:03 · modified, +3 −1". */
export function describeEntry(checkpoint: CheckpointView, path: string): string {
  const parts = [
    shortCommit(checkpoint.commit),
    CHECKPOINT_KIND_WORDS[checkpoint.kind],
    formatDateTime(checkpoint.createdAt),
  ];
  const file = checkpoint.files.find((candidate) => candidate.path === path);
  if (file !== undefined) {
    parts.push(
      file.binary === true
        ? file.status
        : `${file.status}, +${String(file.insertions)} −${String(file.deletions)}`,
    );
  }
  return parts.join(' · ');
}
