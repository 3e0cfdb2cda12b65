import type { BrowserSessionView } from '@catalyst/protocol';
import { useCallback, useEffect, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { Dialog } from '../base/Dialog.tsx';
import { formatDateTime, formatRelative } from '../base/format.ts';
import { logOutHere } from './end-session.ts';

/**
 * Every browser signed in to Catalyst (issue 25), newest login first, this one marked; any can be signed out (a
 * lost phone) without changing the token. Signing this one out is logging out; "Sign out all others" ends every
 * other one at once (issue 40).
 */
/** The busy mark while every other browser is signed out. */
const ALL_OTHERS = 'all-others';

export function SignedInBrowsers({ onClose }: { onClose: () => void }) {
  const [sessions, setSessions] = useState<BrowserSessionView[]>();
  const [error, setError] = useState<string>();
  const [busyId, setBusyId] = useState<string>();

  const load = useCallback(async () => {
    try {
      setSessions(await api.listSessions());
      setError(undefined);
    } catch (caught) {
      setError(describeError(caught));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const signOut = async (session: BrowserSessionView) => {
    setBusyId(session.id);
    setError(undefined);
    try {
      if (session.current) {
        await logOutHere();
        return;
      }
      await api.endSession(session.id);
      await load();
    } catch (caught) {
      setError(describeError(caught));
    }
    setBusyId(undefined);
  };

  const signOutOthers = async (others: readonly BrowserSessionView[]) => {
    setBusyId(ALL_OTHERS);
    setError(undefined);
    try {
      for (const other of others) await api.endSession(other.id);
    } catch (caught) {
      setError(describeError(caught));
    }
    await load();
    setBusyId(undefined);
  };
  const others = sessions?.filter((session) => !session.current) ?? [];

  return (
    <Dialog title="Signed-in browsers" onClose={onClose}>
      <p className="muted">
        Each browser logged in with Catalyst’s token, or paired through “Open on another device”. Sign out one
        you do not use any more, or a lost phone.
      </p>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined ? (
        error === undefined ? (
          <p className="muted">Loading…</p>
        ) : null
      ) : (
        <ul className="session-list">
          {sessions.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              isBusy={busyId === session.id}
              onSignOut={() => void signOut(session)}
            />
          ))}
        </ul>
      )}
      <div className="actions">
        {others.length === 0 ? null : (
          <button
            type="button"
            className="danger"
            disabled={busyId !== undefined}
            onClick={() => void signOutOthers(others)}
          >
            Sign out all others
          </button>
        )}
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function SessionRow({
  session,
  isBusy,
  onSignOut,
}: {
  session: BrowserSessionView;
  isBusy: boolean;
  onSignOut: () => void;
}) {
  return (
    <li className="session-row">
      <span className="session-name">
        <strong>{session.name}</strong>
        {session.current ? <span className="session-tag">This browser</span> : null}
        {session.paired ? <span className="session-tag">Paired</span> : null}
      </span>
      <span className="muted">
        <span title={formatDateTime(session.createdAt)}>logged in {formatRelative(session.createdAt)}</span>
        {' · '}
        <span title={formatDateTime(session.lastSeenAt)}>last seen {formatRelative(session.lastSeenAt)}</span>
        {' · '}
        <span>ends {formatDateTime(session.expiresAt)}</span>
      </span>
      <button
        type="button"
        className={session.current ? undefined : 'danger'}
        disabled={isBusy}
        aria-label={session.current ? 'Log out' : `Sign out ${session.name}`}
        onClick={onSignOut}
      >
        {session.current ? 'Log out' : 'Sign out'}
      </button>
    </li>
  );
}
