import { createContext, useContext, useSyncExternalStore } from 'react';
import type { Connection, ConnectionState } from './connection.ts';

/** The logged-in app's WebSocket connection, for the pages under it (App provides it). */
export const ConnectionContext = createContext<Connection | undefined>(undefined);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (connection === undefined) throw new Error('useConnection outside the logged-in app');
  return connection;
}

export function useConnectionState(connection: Connection): ConnectionState {
  return useSyncExternalStore(
    (listener) => connection.onState(listener),
    () => connection.state,
  );
}
