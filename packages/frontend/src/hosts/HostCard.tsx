import type { HostHealthView, HostSource } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import { ApiError, api, describeError } from '../base/api.ts';
import { EditHostForm } from './EditHostForm.tsx';
import { HostCheckPanel } from './HostCheckPanel.tsx';
import { NotConnectedChoice } from './NotConnectedChoice.tsx';
import { RemoveHostDialog } from './RemoveHostDialog.tsx';
import { useHostCheck } from './use-host-check.ts';

type Removal =
  | { kind: 'idle' | 'removing' }
  | { kind: 'asking'; sentence: string; isBusy: boolean; error?: string }
  | { kind: 'failed'; message: string };

/**
 * One host: where it is, whether it answers and where claude is, where it comes from; "Check" (at once for a host
 * just added); "Edit" and "Remove" for a host added in the app, a note for one of CATALYST_CONFIG_FILE.
 */
export function HostCard({
  host,
  checkAtOnce,
  onChanged,
}: {
  host: HostHealthView;
  checkAtOnce: boolean;
  onChanged: () => void;
}) {
  const headingId = useId();
  // What the list says of the host (reachable, its claude) is as old as the page: a check that reaches another
  // verdict asks for it again.
  const hostCheck = useHostCheck(host.name, {
    checkAtOnce,
    onChecked: (check) => {
      if (check.isReady !== host.reachable) onChanged();
    },
  });
  const [isEditing, setIsEditing] = useState(false);
  const [removal, setRemoval] = useState<Removal>({ kind: 'idle' });
  const isApp = isAppHost(host);
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A host just added takes the focus from the form that is gone: its check is what the person reads next.
  useEffect(() => {
    if (checkAtOnce) headingRef.current?.focus();
  }, [checkAtOnce]);

  const remove = async (isConfirmed: boolean) => {
    setRemoval((old) => (old.kind === 'asking' ? { ...old, isBusy: true } : { kind: 'removing' }));
    try {
      await api.deleteHost(host.name, isConfirmed);
      setRemoval({ kind: 'idle' });
      onChanged();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === 'HOST_HAS_IDEAS' && !isConfirmed) {
        setRemoval({ kind: 'asking', sentence: caught.message, isBusy: false });
      } else if (isConfirmed) {
        setRemoval((old) =>
          old.kind === 'asking' ? { ...old, isBusy: false, error: describeError(caught) } : old,
        );
      } else {
        setRemoval({ kind: 'failed', message: describeError(caught) });
      }
    }
  };

  return (
    <li className="host-card" aria-labelledby={headingId}>
      <div className="host-card-head">
        <h2 id={headingId} ref={headingRef} tabIndex={-1}>
          {host.name}
        </h2>
        {host.isDefault ? <span className="badge badge-default">default</span> : null}
        {hostCheck.state.kind === 'checked' && !hostCheck.state.check.isReady ? (
          <span className="badge badge-not-ready">not ready</span>
        ) : null}
      </div>
      <HostFacts host={host} />
      {host.source === 'app' ? null : <p className="hint">{READ_ONLY_NOTES[host.source ?? 'file']}</p>}
      <div className="actions host-actions">
        <button
          type="button"
          aria-label={`Check ${host.name}`}
          disabled={hostCheck.state.kind === 'checking'}
          onClick={() => void hostCheck.check()}
        >
          Check
        </button>
        {isApp ? (
          <>
            <button
              type="button"
              aria-label={`Edit ${host.name}`}
              aria-expanded={isEditing}
              onClick={() => {
                setIsEditing((old) => !old);
              }}
            >
              Edit
            </button>
            <button
              type="button"
              className="danger"
              aria-label={`Remove ${host.name}`}
              disabled={removal.kind === 'removing'}
              onClick={() => void remove(false)}
            >
              Remove
            </button>
          </>
        ) : null}
      </div>
      {removal.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {removal.message}
        </p>
      ) : null}
      {isEditing ? (
        <EditHostForm
          host={host}
          onSaved={() => {
            setIsEditing(false);
            onChanged();
            // Saved is not ready: the card says what the host is now (its key, claude, login).
            void hostCheck.check();
          }}
          onCancel={() => {
            setIsEditing(false);
          }}
        />
      ) : null}
      {checkAtOnce && hostCheck.state.kind === 'checked' && isApp ? (
        <NotConnectedChoice
          check={hostCheck.state.check}
          onFix={() => {
            setIsEditing(true);
          }}
          onRemove={() => void remove(false)}
        />
      ) : null}
      <HostCheckPanel hostName={host.name} hostCheck={hostCheck} />
      {removal.kind === 'asking' ? (
        <RemoveHostDialog
          hostName={host.name}
          sentence={removal.sentence}
          isBusy={removal.isBusy}
          error={removal.error}
          onConfirm={() => void remove(true)}
          onClose={() => {
            setRemoval({ kind: 'idle' });
          }}
        />
      ) : null}
    </li>
  );
}

function HostFacts({ host }: { host: HostHealthView }) {
  const preflight = host.preflight;
  return (
    <dl className="host-facts">
      <div>
        <dt>Reached as</dt>
        <dd>{host.target ?? host.label}</dd>
      </div>
      <div>
        <dt>Connection</dt>
        <dd className={host.reachable ? 'health-ok' : 'health-bad'}>
          {host.reachable ? 'reachable' : (host.error ?? 'unreachable')}
        </dd>
      </div>
      {host.reachable ? (
        <div>
          <dt>Claude</dt>
          <dd className={preflight?.claudePath === undefined ? 'health-bad' : undefined}>
            {preflight?.claudePath === undefined
              ? 'not found'
              : `${preflight.version ?? 'claude'} at ${preflight.claudePath}`}
          </dd>
        </div>
      ) : null}
      {host.ideasRoot === undefined ? null : (
        <div>
          <dt>Ideas root</dt>
          <dd>{host.ideasRoot}</dd>
        </div>
      )}
      <div>
        <dt>Added</dt>
        <dd>{ADDED[host.source ?? 'file']}</dd>
      </div>
    </dl>
  );
}

/** Why a host that was not added here cannot be changed here, and where it comes from. */
const READ_ONLY_NOTES: Record<Exclude<HostSource, 'app'>, string> = {
  file: 'From CATALYST_CONFIG_FILE: it is changed in that file, not here.',
  builtin:
    'Built in: this machine, the host Catalyst starts with when no CATALYST_CONFIG_FILE is set. Add your VM with “Add a host” at the top of this page, or describe hosts in that file.',
};
const ADDED: Record<HostSource, string> = {
  app: 'in Catalyst',
  file: 'in CATALYST_CONFIG_FILE',
  builtin: 'built in (no hosts file)',
};

/** Added in the app, so changed and removed here; a host of CATALYST_CONFIG_FILE (or an older server) is not. */
function isAppHost(host: HostHealthView): boolean {
  return host.source === 'app';
}
