import { useEffect } from 'react';
import { useIsHidden } from '../notify/use-attention.ts';
import type { Connection, ConnectionState } from './connection.ts';

/**
 * Tells the server which idea this tab shows while it is visible (issue 29): no push about it goes to a device
 * that is looking at it. `{type: 'viewing', ideaId}` when the page is shown, `ideaId: null` when the tab is hidden
 * or the page left; again on every (re)connect, as the server forgets it when a socket closes.
 */
export function useViewing(
  connection: Pick<Connection, 'send' | 'nextRequestId'>,
  state: ConnectionState,
  ideaId: string,
): void {
  const isHidden = useIsHidden();

  useEffect(() => {
    if (state !== 'open') return;
    connection.send({
      type: 'viewing',
      ideaId: isHidden ? null : ideaId,
      requestId: connection.nextRequestId('viewing'),
    });
  }, [connection, state, isHidden, ideaId]);

  useEffect(
    () => () => {
      connection.send({ type: 'viewing', ideaId: null, requestId: connection.nextRequestId('viewing') });
    },
    [connection, ideaId],
  );
}
