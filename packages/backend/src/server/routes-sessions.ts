import { Router, type Request, type Response } from 'express';
import { BrowserSessionIdSchema, type BrowserSessionView } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { Auth } from './auth.ts';
import type { BrowserSession } from './browser-sessions.ts';
import { sendError } from './http-errors.ts';
import { serializeClearedSessionCookie } from './login-session.ts';
import { parseUrlId } from './request-parsing.ts';

/**
 * The signed-in browsers (issue 25), under /api behind the token check (http-app.ts):
 *
 * - `GET /api/sessions`: `{ sessions }`, the request's own marked `current`;
 * - `DELETE /api/sessions/:id`: signs that browser out (its API calls get 401, its WebSocket is closed);
 * - `POST /api/logout`: signs this browser out and clears its cookie. An API client's token has no session to end.
 */

export interface SessionRouteOptions {
  /** The cookie is Secure (CATALYST_PUBLIC_URL is https): so must its removal be. */
  secureCookie: boolean;
}

const SESSION_ID_SENTENCE =
  'The session id in the URL is not valid: ids look like session- followed by 16 lower-case hex digits.';

export function createSessionsRouter(auth: Auth, options: SessionRouteOptions): Router {
  const router = Router();
  router.get('/sessions', (request, response) => {
    const current = auth.sessionOf(request)?.id;
    response.json({ sessions: auth.sessions.list().map((session) => viewOf(auth, session, current)) });
  });
  router.delete('/sessions/:id', async (request, response) => {
    const id = parseUrlId(BrowserSessionIdSchema, request.params.id, SESSION_ID_SENTENCE);
    const isCurrent = auth.sessionOf(request)?.id === id;
    if (!(await auth.sessions.end(id))) {
      const message = 'There is no such signed-in browser: it has signed out or its session has ended.';
      sendError(response, { code: 'INVALID_ARGUMENT', message, status: 404 });
      return;
    }
    if (isCurrent) clearCookie(request, response, options);
    response.status(204).end();
  });
  router.post('/logout', async (request, response) => {
    const current = auth.sessionOf(request);
    if (current === undefined) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        'Only a browser logs out; an API client’s token stays valid until the token changes.',
      );
    }
    await auth.sessions.end(current.id);
    clearCookie(request, response, options);
    response.status(204).end();
  });
  return router;
}

function clearCookie(request: Request, response: Response, options: SessionRouteOptions): void {
  response.setHeader(
    'Set-Cookie',
    serializeClearedSessionCookie({ secure: options.secureCookie || request.secure }),
  );
}

function viewOf(auth: Auth, session: BrowserSession, current: string | undefined): BrowserSessionView {
  return {
    id: session.id,
    name: session.name,
    createdAt: new Date(session.createdAt).toISOString(),
    lastSeenAt: new Date(session.lastSeenAt).toISOString(),
    expiresAt: new Date(auth.sessions.expiresAt(session)).toISOString(),
    current: session.id === current,
  };
}
