import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import type { WebSocket } from 'ws';
import { openTokenSocket } from './token-socket.ts';

/** A terminal's own WebSocket (`/ws/terminal`, docs/protocol.md), let in by the token like the API. */
export async function openTerminalSocket(url: string, token: string): Promise<WebSocket> {
  const socket = await openTokenSocket(url, TERMINAL_WS_PATH, token);
  // After the open, errors arrive as a close; without a listener ws would throw them.
  socket.on('error', () => undefined);
  return socket;
}
