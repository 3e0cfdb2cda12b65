import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Auth } from './auth.ts';
import { serializeLoginCookie } from './auth.ts';

/**
 * `GET /login?token=…`: the link Catalyst prints at start-up. A valid token becomes the HttpOnly cookie and the
 * browser is sent to `/` (303, so the token leaves the address bar at once). Anything else sets no cookie: where
 * the web app is served, the browser is sent to its login screen (`/?login=refused`, which says the token was not
 * accepted); without it, a plain 401. The request logger records paths without query strings, so the token in
 * this URL is never logged.
 */

const LoginQuerySchema = z.object({ token: z.string().min(1).max(1024) });

export const LOGIN_REFUSED_MESSAGE =
  'This login link is not valid. Use the link Catalyst printed when it started, or the token in its token file.\n';

export const LOGIN_REFUSED_PAGE = '/?login=refused';

export function createLoginHandler(
  auth: Auth,
  logger: Logger,
  options: { appServed: boolean } = { appServed: false },
): RequestHandler {
  return (request, response) => {
    const query = LoginQuerySchema.safeParse(request.query);
    if (!query.success || !auth.isValidToken(query.data.token)) {
      logger.warn({ remoteAddress: request.socket.remoteAddress }, 'login link refused');
      if (options.appServed) response.redirect(303, LOGIN_REFUSED_PAGE);
      else response.status(401).type('text/plain').send(LOGIN_REFUSED_MESSAGE);
      return;
    }
    response.setHeader('Set-Cookie', serializeLoginCookie(query.data.token, { secure: request.secure }));
    response.redirect(303, '/');
  };
}
