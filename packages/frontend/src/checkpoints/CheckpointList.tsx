import type { CheckpointView } from '@catalyst/protocol';
import { useId, useState } from 'react';
import { api } from '../base/api.ts';
import { formatDateTime } from '../base/format.ts';
import { useFetched } from '../base/use-fetched.ts';
import { useProjectLinks } from '../files/project-context.ts';
import { changeCountText } from '../transcript/SessionNotice.tsx';
import { CheckpointDiff } from './CheckpointDiff.tsx';
import { CHECKPOINT_KIND_WORDS, RESTORE_WHILE_RUNNING, shortCommit } from './checkpoint-text.ts';
import { RestoreDialog } from './RestoreDialog.tsx';

interface CheckpointListProps {
  ideaId: string;
  /** Changes when a checkpoint was made or restored: the list is fetched again. */
  projectVersion: number;
}

/**
 * The workspace's Changes tab (issue 31): every checkpoint of the idea, newest first, each with what it changed
 * and a restore to exactly it; the restore is itself a checkpoint, so it can be undone from this list too.
 */
export function CheckpointList({ ideaId, projectVersion }: CheckpointListProps) {
  const headingId = useId();
  const fetched = useFetched(`${ideaId}\n${String(projectVersion)}`, () => api.listCheckpoints(ideaId), {
    keepPrevious: true,
  });
  return (
    <section className="panel changes" aria-labelledby={headingId}>
      <h2 id={headingId}>Changes</h2>
      {fetched.kind === 'loading' ? (
        <p className="muted" role="status">
          Loading the checkpoints…
        </p>
      ) : fetched.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {fetched.message}
        </p>
      ) : fetched.value.length === 0 ? (
        <p className="muted">No checkpoint yet: each build ends with one, and its changes are listed here.</p>
      ) : (
        <ol className="changes__list" aria-label="Checkpoints, newest first">
          {fetched.value.map((checkpoint, index) => (
            <li key={checkpoint.commit}>
              <CheckpointEntry ideaId={ideaId} checkpoint={checkpoint} isNewest={index === 0} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function CheckpointEntry({
  ideaId,
  checkpoint,
  isNewest,
}: {
  ideaId: string;
  checkpoint: CheckpointView;
  isNewest: boolean;
}) {
  const [isDiffOpen, setIsDiffOpen] = useState(false);
  const [isAsking, setIsAsking] = useState(false);
  const { isRunning } = useProjectLinks();
  const diffId = useId();
  const name = describeCheckpoint(checkpoint);
  return (
    <article className="changes__entry" aria-label={name}>
      <h3 className="changes__name">
        {name}
        {isNewest ? <span className="muted"> · latest</span> : null}
      </h3>
      <p className="changes__counts">{changeCountText(checkpoint)}</p>
      <div className="actions">
        <button
          type="button"
          aria-expanded={isDiffOpen}
          aria-controls={isDiffOpen ? diffId : undefined}
          onClick={() => {
            setIsDiffOpen((isOpen) => !isOpen);
          }}
        >
          View changes
        </button>
        <button
          type="button"
          disabled={isRunning}
          title={isRunning ? RESTORE_WHILE_RUNNING : undefined}
          onClick={() => {
            setIsAsking(true);
          }}
        >
          Restore to this checkpoint
        </button>
      </div>
      {isDiffOpen ? <CheckpointDiff id={diffId} ideaId={ideaId} commit={checkpoint.commit} /> : null}
      {isAsking ? (
        <RestoreDialog
          ideaId={ideaId}
          restoreTo={checkpoint.commit}
          title="Restore to this checkpoint?"
          what={`The project’s files go back to exactly how they were at this checkpoint (${name}): every change made since is undone.`}
          onClose={() => {
            setIsAsking(false);
          }}
        />
      ) : null}
    </article>
  );
}

/** "After a build, 26 Nov 2026, 18:40 (3f2a1c9)". */
function describeCheckpoint(checkpoint: CheckpointView): string {
  return `${CHECKPOINT_KIND_WORDS[checkpoint.kind]}, ${formatDateTime(checkpoint.createdAt)} (${shortCommit(checkpoint.commit)})`;
}
