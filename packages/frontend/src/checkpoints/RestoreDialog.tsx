import { useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { Dialog } from '../base/Dialog.tsx';
import { useProjectLinks } from '../files/project-context.ts';
import { RESTORE_WHILE_RUNNING } from './checkpoint-text.ts';

interface RestoreDialogProps {
  ideaId: string;
  /** The checkpoint the project goes back to. */
  restoreTo: string;
  /** "Restore to before this build?" */
  title: string;
  /** What goes back and what is undone, in a sentence. */
  what: string;
  onClose: () => void;
}

/**
 * "Restore to …?", saying what happens, with the harmless choice first. Once restored it closes: the transcript
 * shows the restore (`checkpoint:restored`) as it does for any client.
 */
export function RestoreDialog({ ideaId, restoreTo, title, what, onClose }: RestoreDialogProps) {
  const { isRunning } = useProjectLinks();
  const [error, setError] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);
  const restore = async () => {
    setIsBusy(true);
    setError(undefined);
    try {
      await api.restoreCheckpoint(ideaId, restoreTo);
      onClose();
    } catch (caught) {
      setError(describeError(caught));
      setIsBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{what}</p>
      <p>The restore is recorded as a new checkpoint, so it can be undone too.</p>
      <p>Claude is told in your next message, so that it knows the files changed.</p>
      {isRunning ? <p className="hint">{RESTORE_WHILE_RUNNING}</p> : null}
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={isBusy || isRunning}
          onClick={() => void restore()}
        >
          {isBusy ? 'Restoring…' : 'Restore files'}
        </button>
        <button type="button" data-autofocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
