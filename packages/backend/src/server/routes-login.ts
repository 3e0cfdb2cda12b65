import { LoginBodySchema, type LoginResponse } from '@catalyst/protocol';
import express, { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Auth } from './auth.ts';
import { FORBIDDEN_ORIGIN_MESSAGE } from './auth.ts';
import { browserNameOf } from './browser-name.ts';
import { sendError } from './http-errors.ts';
import { serializeSessionCookie } from './login-session.ts';

/**
 * How a browser logs in (docs/security.md, "The browser session").
 *
 * - `GET /login#token=…` is the link Catalyst prints: the fragment never leaves the browser, so the token is in no
 *   request line (no proxy access log, no server log). The server answers with the web app, which reads the
 *   fragment, drops it from the address bar and posts the token.
 * - `POST /login` `{ token }`: a valid token starts a session: the HttpOnly cookie, and `{ key }` in the answer for
 *   the page to keep; the session is listed, named after the browser (api-sessions.ts). A wrong token gets 401
 *   and no cookie; a foreign Origin 403.
 * - `GET /login?token=…`, the old link, is refused whatever the token (it would sit in a proxy's access log and
 *   the browser's history): the browser is sent to the login screen, which says how to log in.
 */

export const LOGIN_REFUSED_PAGE = '/?login=refused';
export const LOGIN_REFUSED_MESSAGE =
  'That token was not accepted. Use the login link Catalyst printed when it started, or the token in its token file.';
const LOGIN_BODY_LIMIT_BYTES = 4096;

/** The link printed at start-up: the token after `#`, which a browser never sends anywhere. */
export function loginLink(baseUrl: string, token: string): string {
  return `${baseUrl}/login#token=${encodeURIComponent(token)}`;
}

export interface LoginRouteOptions {
  /** The cookie is Secure: the public URL is https. A request that itself came over TLS gets it anyway. */
  secureCookie: boolean;
  /** Where the web app is served, the old link lands on its login screen; else a plain 401. */
  appServed: boolean;
}

export function createLoginRouter(auth: Auth, logger: Logger, options: LoginRouteOptions): Router {
  const router = Router();
  router.get('/', refuseTokenInQuery(logger, options.appServed));
  router.post('/', express.json({ limit: LOGIN_BODY_LIMIT_BYTES }), async (request, response) => {
    if (auth.checkOrigin(request) === 'forbidden') {
      sendError(response, { code: 'FORBIDDEN_ORIGIN', message: FORBIDDEN_ORIGIN_MESSAGE });
      return;
    }
    const body = LoginBodySchema.safeParse(request.body);
    if (!body.success || !auth.isValidToken(body.data.token)) {
      logger.warn({ remoteAddress: request.socket.remoteAddress }, 'login refused');
      sendError(response, { code: 'UNAUTHORIZED', message: LOGIN_REFUSED_MESSAGE });
      return;
    }
    const session = await auth.startSession(browserNameOf(request.headers['user-agent']));
    const secure = options.secureCookie || request.secure;
    response.setHeader('Set-Cookie', serializeSessionCookie(session.id, { secure }));
    const answer: LoginResponse = { key: session.key };
    response.json(answer);
  });
  return router;
}

/** The old `?token=` link: no session, whatever the token; anything else is the app's (or the 404). */
function refuseTokenInQuery(logger: Logger, appServed: boolean): RequestHandler {
  return (request, response, next) => {
    if (!Object.hasOwn(request.query, 'token')) {
      next();
      return;
    }
    logger.warn({ remoteAddress: request.socket.remoteAddress }, 'login link with a token query refused');
    if (appServed) response.redirect(303, LOGIN_REFUSED_PAGE);
    else response.status(401).type('text/plain').send(`${LOGIN_REFUSED_MESSAGE}\n`);
  };
}
