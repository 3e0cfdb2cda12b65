import type { PresentedHostKey } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import { hostKeyFileOf } from './host-check-text.ts';
import type { TrustState } from './use-host-check.ts';

/**
 * A host key known nowhere: its type and fingerprint, how to read the real one on the VM's console, and two ways
 * to confirm it (one click when it matches, or the fingerprint read there pasted). A fingerprint that differs is
 * refused by the server; then only the warning stays, and nothing here offers the key again.
 */
export function HostKeyConfirm({
  hostName,
  presented,
  trustState,
  onTrust,
}: {
  hostName: string;
  presented: PresentedHostKey;
  trustState: TrustState;
  onTrust: (fingerprint: string) => void;
}) {
  const headingId = useId();
  const pastedId = useId();
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string>();
  const isTrusting = trustState.kind === 'trusting';
  // The machine that presented it: the host itself or a jump host on the way, as its check names it.
  const who = presented.hop === '' ? hostName : presented.hop;
  const whereToCompare = presented.isJump === true ? 'the jump host’s own console' : 'the VM’s own console';
  // The confirmation is what the person came for: in view, whole, when it appears (issue 40: it sat below the fold).
  const sectionRef = useRef<HTMLElement>(null);
  useEffect(() => {
    sectionRef.current?.scrollIntoView({ block: 'nearest' });
  }, []);

  if (trustState.kind === 'refused') {
    return (
      <div className="host-key host-key-refused" role="alert">
        <h3>Not trusted: the fingerprints differ</h3>
        <p>{trustState.message}</p>
        <p>
          Someone may be between Catalyst and {who}. Find out why before you go on; “Check” shows the key it
          presents now.
        </p>
      </div>
    );
  }
  return (
    <section className="host-key" aria-labelledby={headingId} ref={sectionRef}>
      <h3 id={headingId}>A new host key to confirm</h3>
      <p>
        {presented.isJump === true ? `The jump host ${who}, on the way to ${hostName},` : who} presented a key
        that no known_hosts file holds (for {presented.knownHostsName}). On {whereToCompare} (not through this
        connection), run <code>ssh-keygen -lf {hostKeyFileOf(presented.keyType)}</code>: it prints the same
        SHA256 if the key is {presented.isJump === true ? 'the jump host’s' : 'the VM’s'}.
      </p>
      <p className="host-key-fingerprint">
        <span className="host-key-type">{presented.keyType}</span> <code>{presented.fingerprint}</code>
      </p>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={isTrusting}
          onClick={() => {
            onTrust(presented.fingerprint);
          }}
        >
          It matches: trust this key
        </button>
      </div>
      <form
        className="host-key-paste"
        aria-label="Trust the fingerprint read on the VM"
        onSubmit={(event) => {
          event.preventDefault();
          if (pasted.trim() === '') {
            setPasteError('Paste the fingerprint ssh-keygen printed on the VM.');
            return;
          }
          setPasteError(undefined);
          onTrust(pasted.trim());
        }}
      >
        <label htmlFor={pastedId}>
          Or paste the fingerprint read on the {presented.isJump === true ? 'jump host' : 'VM'}
        </label>
        <input
          id={pastedId}
          value={pasted}
          spellCheck={false}
          autoComplete="off"
          placeholder="SHA256:…"
          aria-invalid={pasteError === undefined ? undefined : true}
          aria-describedby={pasteError === undefined ? undefined : `${pastedId}-error`}
          onChange={(event) => {
            setPasted(event.target.value);
          }}
        />
        {pasteError === undefined ? null : (
          <p id={`${pastedId}-error`} className="form-error">
            {pasteError}
          </p>
        )}
        <button type="submit" disabled={isTrusting}>
          Trust the pasted fingerprint
        </button>
      </form>
      <p className="muted" role="status">
        {isTrusting ? 'Trusting the key and checking again…' : ''}
      </p>
      {trustState.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {trustState.message}
        </p>
      ) : null}
    </section>
  );
}
