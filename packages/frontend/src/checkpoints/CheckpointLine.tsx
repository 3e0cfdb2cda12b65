import { useEffect, useId, useState } from 'react';
import { useProjectLinks } from '../files/project-context.ts';
import { changeCountText } from '../transcript/SessionNotice.tsx';
import { CheckpointDiff } from './CheckpointDiff.tsx';
import { RESTORE_WHILE_RUNNING, type CheckpointEvent } from './checkpoint-text.ts';
import { RestoreDialog } from './RestoreDialog.tsx';

/**
 * Under a build's summary (issue 13): "3 files changed, +40 −2 · View changes · Restore to before this build". The
 * changes open below, per file; the restore asks first. The first checkpoint has nothing before it to restore.
 */
export function CheckpointLine({ checkpoint }: { checkpoint: CheckpointEvent }) {
  const [isDiffOpen, setIsDiffOpen] = useState(false);
  const [isAsking, setIsAsking] = useState(false);
  const diffId = useId();
  const { parent } = checkpoint;
  // Opened, the diff comes into view at the top of the window (issue 31): below the fold, or under the sticky
  // composer, it looked as if nothing had happened.
  useEffect(() => {
    if (isDiffOpen) document.getElementById(diffId)?.scrollIntoView({ block: 'start' });
  }, [isDiffOpen, diffId]);
  return (
    <div className="t-checkpoint">
      <p className="t-checkpoint__line">
        {changeCountText(checkpoint)}
        {' · '}
        <button
          type="button"
          className="link"
          aria-expanded={isDiffOpen}
          aria-controls={isDiffOpen ? diffId : undefined}
          onClick={() => {
            setIsDiffOpen((isOpen) => !isOpen);
          }}
        >
          View changes
        </button>
        {parent === null ? null : (
          <>
            {' · '}
            <RestoreButton
              onClick={() => {
                setIsAsking(true);
              }}
            />
          </>
        )}
      </p>
      {isDiffOpen ? (
        <CheckpointDiff id={diffId} ideaId={checkpoint.ideaId} commit={checkpoint.commit} />
      ) : null}
      {isAsking && parent !== null ? (
        <RestoreDialog
          ideaId={checkpoint.ideaId}
          restoreTo={parent}
          title="Restore to before this build?"
          what={`The project’s files go back to exactly how they were before this build: its changes (${changeCountText(checkpoint)}) and any made since are undone.`}
          onClose={() => {
            setIsAsking(false);
          }}
        />
      ) : null}
    </div>
  );
}

function RestoreButton({ onClick }: { onClick: () => void }) {
  const { isRunning } = useProjectLinks();
  return (
    <button
      type="button"
      className="link"
      disabled={isRunning}
      title={isRunning ? RESTORE_WHILE_RUNNING : undefined}
      onClick={onClick}
    >
      Restore to before this build
    </button>
  );
}
