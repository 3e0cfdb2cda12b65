import { useState } from 'react';
import { describeError } from '../base/api.ts';
import { logOutHere } from './end-session.ts';
import { OpenOnAnotherDevice } from './OpenOnAnotherDevice.tsx';
import { SignedInBrowsers } from './SignedInBrowsers.tsx';
import './sessions.css';

/**
 * The header's way to another device (a phone, through a QR code: issue 29), to the signed-in browsers (issue 25)
 * and out of Catalyst.
 */
export function AccountActions() {
  const [isPairingOpen, setIsPairingOpen] = useState(false);
  const [isListOpen, setIsListOpen] = useState(false);
  const [isBusy, setIsBusy] = useState(false);
  const [error, setError] = useState<string>();
  const logOut = async () => {
    setIsBusy(true);
    setError(undefined);
    try {
      await logOutHere();
    } catch (caught) {
      setError(describeError(caught));
      setIsBusy(false);
    }
  };
  return (
    <div className="account-actions">
      <button
        type="button"
        onClick={() => {
          setIsPairingOpen(true);
        }}
      >
        Open on another device
      </button>
      <button
        type="button"
        onClick={() => {
          setIsListOpen(true);
        }}
      >
        Signed-in browsers
      </button>
      <button type="button" disabled={isBusy} onClick={() => void logOut()}>
        Log out
      </button>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {isPairingOpen ? (
        <OpenOnAnotherDevice
          onClose={() => {
            setIsPairingOpen(false);
          }}
        />
      ) : null}
      {isListOpen ? (
        <SignedInBrowsers
          onClose={() => {
            setIsListOpen(false);
          }}
        />
      ) : null}
    </div>
  );
}
