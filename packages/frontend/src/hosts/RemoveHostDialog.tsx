import { Dialog } from '../base/Dialog.tsx';

/**
 * "Remove …?" for a host that holds ideas, with the server's sentence (how many; they stay on the VM and come back
 * with the host) and the harmless choice first.
 */
export function RemoveHostDialog({
  hostName,
  sentence,
  isBusy,
  error,
  onConfirm,
  onClose,
}: {
  hostName: string;
  sentence: string;
  isBusy: boolean;
  error: string | undefined;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={`Remove ${hostName}?`} onClose={onClose}>
      <p>{readableSentence(sentence)}</p>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={isBusy} onClick={onConfirm}>
          Remove anyway
        </button>
        <button type="button" data-autofocus onClick={onClose}>
          Keep it
        </button>
      </div>
    </Dialog>
  );
}

/** The API's sentence ends with "confirm to remove it anyway", which this dialog's button is. */
export function readableSentence(sentence: string): string {
  return sentence.replace(/;\s*confirm to remove it anyway\.?$/, '.');
}
