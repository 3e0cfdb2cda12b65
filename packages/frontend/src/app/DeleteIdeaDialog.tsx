import { useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { Dialog } from '../base/Dialog.tsx';
import { useFetched } from '../base/use-fetched.ts';

/** "Delete …?" with the harmless choice first; from the idea's page, and from the list for a broken folder. */
export function DeleteIdeaDialog({
  ideaId,
  title,
  onDeleted,
  onClose,
}: {
  ideaId: string;
  title: string;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // A preview that runs is stopped with the idea (issue 31): the person is told before, not surprised after.
  const preview = useFetched(ideaId, () => api.preview(ideaId));
  const isPreviewRunning =
    preview.kind === 'loaded' && (preview.value.state === 'running' || preview.value.state === 'starting');
  // So are its terminals, in this tab, another or the CLI: the server counts them.
  const terminals = useFetched(ideaId, () => api.openTerminals(ideaId));
  const openTerminals = terminals.kind === 'loaded' ? terminals.value : 0;
  const remove = async () => {
    setBusy(true);
    try {
      await api.deleteIdea(ideaId);
      onDeleted();
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Delete “${title}”?`} onClose={onClose}>
      <p>
        Its folder on the host, the project Claude built in it and the whole conversation are removed. This
        cannot be undone.
      </p>
      {isPreviewRunning ? <p>Its preview is running: it stops, and its link no longer opens.</p> : null}
      {openTerminals > 0 ? <p>{describeTerminals(openTerminals)}</p> : null}
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
          Delete
        </button>
        <button type="button" data-autofocus onClick={onClose}>
          Keep it
        </button>
      </div>
    </Dialog>
  );
}

function describeTerminals(count: number): string {
  return count === 1
    ? 'It has a terminal open: its shell ends, and everything started in it stops.'
    : `It has ${String(count)} terminals open: their shells end, and everything started in them stops.`;
}
