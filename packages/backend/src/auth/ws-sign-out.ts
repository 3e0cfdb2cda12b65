import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { Auth } from './auth.ts';
import { closeWithin } from '../server/ws-close.ts';

/**
 * A browser's WebSocket lasts no longer than its session (issue 25): a logout, a sign-out from another browser or
 * the session's end closes it with 4401, and the page's reconnect is then refused with 401 (its login screen).
 * A client let in by the token has no session and is not watched. A client that does not complete the close within
 * SIGN_OUT_GRACE_MS is cut (security review, issue 39): ws alone waits 30 s for it.
 */

export const SIGNED_OUT_CLOSE_CODE = 4401;
export const SIGN_OUT_GRACE_MS = 1000;

export function closeOnSignOut(auth: Auth, request: IncomingMessage, socket: WebSocket): void {
  const session = auth.loginOf(request);
  if (session === undefined) return;
  const stop = auth.logins.onEnded((id) => {
    if (id !== session.id) return;
    void closeWithin(socket, {
      code: SIGNED_OUT_CLOSE_CODE,
      reason: 'signed out',
      graceMs: SIGN_OUT_GRACE_MS,
    });
  });
  socket.once('close', stop);
}
