import type { ConnectionState } from './connection.ts';

/** Visible whenever the live connection is down; the page keeps what it has and catches up on reconnect. */
export function ConnectionBanner({ state }: { state: ConnectionState }) {
  if (state === 'open') return null;
  return (
    <div className="connection-banner" role="status">
      {state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
    </div>
  );
}
