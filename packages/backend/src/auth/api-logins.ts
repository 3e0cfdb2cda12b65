import type { Request, Response } from 'express';
import type { Api, BrowserSessionView } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { Auth } from './auth.ts';
import type { BrowserLogin } from './browser-logins.ts';
import { sendError } from '../server/http-errors.ts';
import { serializeClearedSessionCookie } from './login-cookie.ts';
import type { ApiHandlers } from '../server/api-binding.ts';

/**
 * The signed-in browsers (issue 25), under /api behind the token check (http-app.ts):
 *
 * - `GET /api/sessions`: `{ sessions }`, the request's own marked `current`;
 * - `DELETE /api/sessions/:id`: signs that browser out (its API calls get 401, its WebSocket is closed);
 * - `POST /api/logout`: signs this browser out and clears its cookie. An API client's token has no session to end.
 */

export interface LoginRouteOptions {
  /** The cookie is Secure (CATALYST_PUBLIC_URL is https): so must its removal be. */
  secureCookie: boolean;
}

export function loginHandlers(
  auth: Auth,
  options: LoginRouteOptions,
): ApiHandlers<Pick<Api, 'listSessions' | 'endSession' | 'logOut'>> {
  return {
    listSessions: (_input, { request }) => {
      const current = auth.loginOf(request)?.id;
      return { sessions: auth.logins.list().map((session) => viewOf(auth, session, current)) };
    },
    endSession: async ({ params }, { request, response }) => {
      const isCurrent = auth.loginOf(request)?.id === params.id;
      if (!(await auth.logins.end(params.id))) {
        const message = 'There is no such signed-in browser: it has signed out or its session has ended.';
        sendError(response, { code: 'INVALID_ARGUMENT', message, status: 404 });
        return;
      }
      if (isCurrent) clearCookie(request, response, options);
    },
    logOut: async (_input, { request, response }) => {
      const current = auth.loginOf(request);
      if (current === undefined) {
        throw new CatalystError(
          'INVALID_ARGUMENT',
          'Only a browser logs out; an API client’s token stays valid until the token changes.',
        );
      }
      await auth.logins.end(current.id);
      clearCookie(request, response, options);
    },
  };
}

function clearCookie(request: Request, response: Response, options: LoginRouteOptions): void {
  response.setHeader(
    'Set-Cookie',
    serializeClearedSessionCookie({ secure: options.secureCookie || request.secure }),
  );
}

function viewOf(auth: Auth, session: BrowserLogin, current: string | undefined): BrowserSessionView {
  return {
    id: session.id,
    name: session.name,
    createdAt: new Date(session.createdAt).toISOString(),
    lastSeenAt: new Date(session.lastSeenAt).toISOString(),
    expiresAt: new Date(auth.logins.expiresAt(session)).toISOString(),
    current: session.id === current,
    paired: session.isPaired === true,
  };
}
