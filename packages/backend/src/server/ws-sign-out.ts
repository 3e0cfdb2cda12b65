import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { Auth } from './auth.ts';

/**
 * A browser's WebSocket lasts no longer than its session (issue 25): a logout, a sign-out from another browser or
 * the session's end closes it with 4401, and the page's reconnect is then refused with 401 (its login screen).
 * A client let in by the token has no session and is not watched.
 */

export const SIGNED_OUT_CLOSE_CODE = 4401;

export function closeOnSignOut(auth: Auth, request: IncomingMessage, socket: WebSocket): void {
  const session = auth.sessionOf(request);
  if (session === undefined) return;
  const stop = auth.sessions.onEnded((id) => {
    if (id === session.id) socket.close(SIGNED_OUT_CLOSE_CODE, 'signed out');
  });
  socket.once('close', stop);
}
