import type { RunMode } from '@catalyst/protocol';
import { useEffect } from 'react';
import type { Connection, ConnectionState } from './connection.ts';

/**
 * Tells the server the mode the idea's composer shows (issue 30), so that the idea's next turn finds a claude of
 * that mode waiting: `{type: 'mode', ideaId, mode}` once the idea's history has arrived (the composer's opening
 * mode may follow the last run in it), on every switch, and again on every (re)connect.
 */
export function useShownMode(
  connection: Pick<Connection, 'send' | 'nextRequestId'>,
  state: ConnectionState,
  shown: { ideaId: string; mode: RunMode | undefined; isLive: boolean },
): void {
  const { ideaId, mode, isLive } = shown;
  useEffect(() => {
    if (state !== 'open' || !isLive || mode === undefined) return;
    connection.send({ type: 'mode', ideaId, mode, requestId: connection.nextRequestId('mode') });
  }, [connection, state, ideaId, mode, isLive]);
}
