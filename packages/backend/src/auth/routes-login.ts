import { LOGIN_API, LOGIN_BODY_LIMIT_BYTES, PAIRING_PATH } from '@catalyst/protocol';
import express, {
  Router,
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from 'pino';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { bindApi } from '../server/api-binding.ts';
import type { AttemptLimiter } from './attempt-limiter.ts';
import { retryAfterSecondsOf, THROTTLED_LOG_MESSAGE, throttledMessage } from './throttled-answer.ts';
import type { Auth } from './auth.ts';
import { FORBIDDEN_ORIGIN_MESSAGE } from './auth.ts';
import { browserNameOf } from './browser-name.ts';
import { sendError } from '../server/http-errors.ts';
import { serializeSessionCookie } from './login-cookie.ts';
import type { PairingCodes } from './pairing-codes.ts';

/**
 * How a browser gets in (docs/security.md, "The browser session" and "Pairing a phone"): the public routes of the
 * contract (protocol api-contract.ts, LOGIN_API), outside /api and its token check.
 *
 * - `GET /login#token=…` is the link Catalyst prints: the fragment never leaves the browser, so the token is in no
 *   request line (no proxy access log, no server log). The server answers with the web app, which reads the
 *   fragment, drops it from the address bar and posts the token.
 * - `POST /login` `{ token }`: a valid token starts a session: the HttpOnly cookie, and `{ key }` in the answer for
 *   the page to keep; the session is listed, named after the browser (api-logins.ts). A browser whose cookie
 *   names a live session keeps that session (issue 40), so the list does not grow each time the link is opened. A wrong token gets 401
 *   and no cookie; a foreign Origin 403.
 * - `POST /pair` `{ code }`: the same with a one-time pairing code (pairing-codes.ts) instead of the token, from
 *   the link `/pair#code=…` a signed-in browser made (api-pairing.ts); the session is listed as paired. A code that
 *   is unknown, used or expired gets 401 PAIRING_CODE_REFUSED, one answer for all three.
 * - `GET /login?token=…`, the old link, is refused whatever the token (it would sit in a proxy's access log and
 *   the browser's history): the browser is sent to the login screen, which says how to log in.
 *
 * Both posts take at most 4 KiB and check the Origin before the body is read. Wrong tokens and codes count per
 * client address, together (attempt-limiter.ts): after 5, the address gets 429 with Retry-After for a wait that
 * grows with each further failure, logged once when it begins (issue 39).
 */

export const LOGIN_REFUSED_PAGE = '/?login=refused';
export const LOGIN_REFUSED_MESSAGE =
  'That token was not accepted. Use the login link Catalyst printed when it started, or the token in its token file.';
export const PAIRING_REFUSED_MESSAGE =
  'This pairing link was already used or has expired: make a new one on your computer (Open on another device).';

/** The link printed at start-up: the token after `#`, which a browser never sends anywhere. */
export function loginLink(baseUrl: string, token: string): string {
  return `${baseUrl}/login#token=${encodeURIComponent(token)}`;
}

export interface LoginRouteOptions {
  /** The cookie is Secure: the public URL is https. A request that itself came over TLS gets it anyway. */
  secureCookie: boolean;
  /** Where the web app is served, the old link lands on its login screen; else a plain 401. */
  appServed: boolean;
  pairing: PairingCodes;
}

/** Mounted at the root: it answers `/login` and `POST /pair`, and passes everything else on. */
export function createLoginRouter(auth: Auth, logger: Logger, options: LoginRouteOptions): Router {
  const router = Router();
  router.use(['/login', PAIRING_PATH], noStore);
  router.get('/login', refuseTokenInQuery(logger, options.appServed));
  router.post(
    ['/login', PAIRING_PATH],
    refuseForeignOrigin(auth),
    refuseThrottled(auth.attempts),
    express.json({ limit: LOGIN_BODY_LIMIT_BYTES }),
  );
  const refuse = refuseAttempt(auth.attempts, logger);
  const startLogin = async (request: Request, response: Response, origin: { isPaired: boolean }) => {
    // A browser already signed in (the login link opened again) keeps its session; a pairing is always new.
    const kept = origin.isPaired ? undefined : auth.keptLogin(request);
    const session = kept ?? (await auth.startLogin(browserNameOf(request.headers['user-agent']), origin));
    const secure = options.secureCookie || request.secure;
    response.setHeader('Set-Cookie', serializeSessionCookie(session.id, { secure }));
    return { key: session.key };
  };
  bindApi(
    router,
    LOGIN_API,
    {
      logIn: async ({ body }, { request, response }) => {
        // Checked again beside the judgement, in one tick: tries sent at once all passed the check before their
        // bodies arrived, and must not all be judged.
        checkAttempt(auth.attempts, request);
        if (!auth.isValidToken(body.token)) {
          refuse(request, 'login refused');
          throw new CatalystError('UNAUTHORIZED', LOGIN_REFUSED_MESSAGE);
        }
        return startLogin(request, response, { isPaired: false });
      },
      redeemPairing: async ({ body }, { request, response }) => {
        checkAttempt(auth.attempts, request);
        // Used up here, before the session is saved: two requests with one code cannot both get in.
        if (!options.pairing.redeem(body.code)) {
          refuse(request, 'pairing code refused');
          throw new CatalystError('PAIRING_CODE_REFUSED', PAIRING_REFUSED_MESSAGE);
        }
        return startLogin(request, response, { isPaired: true });
      },
    },
    '',
  );
  router.use(answerThrottled);
  return router;
}

/** Login answers are never stored by a browser or a proxy. */
const noStore: RequestHandler = (_request, response, next) => {
  response.setHeader('Cache-Control', 'no-store');
  next();
};

/** A login posted from a page Catalyst does not serve is refused before its body is read. */
function refuseForeignOrigin(auth: Auth): RequestHandler {
  return (request, response, next) => {
    if (auth.checkOrigin(request) === 'forbidden') {
      sendError(response, { code: 'FORBIDDEN_ORIGIN', message: FORBIDDEN_ORIGIN_MESSAGE });
      return;
    }
    next();
  };
}

/**
 * An address that guessed wrong too often waits (attempt-limiter.ts): CatalystError with `retryAfterSeconds`,
 * which answerThrottled turns into 429 with Retry-After. No log line: the throttling was logged once, as it began.
 */
function checkAttempt(attempts: AttemptLimiter, request: Request): void {
  const verdict = attempts.check(request.socket.remoteAddress);
  if (verdict.isAllowed) return;
  const retryAfterSeconds = retryAfterSecondsOf(verdict.retryAfterMs);
  throw new CatalystError(
    request.path === PAIRING_PATH ? 'PAIRING_CODE_REFUSED' : 'UNAUTHORIZED',
    throttledMessage(retryAfterSeconds),
    { details: { retryAfterSeconds } },
  );
}

/** Before the body is read, so a throttled address costs no parsing. */
function refuseThrottled(attempts: AttemptLimiter): RequestHandler {
  return (request, _response, next) => {
    checkAttempt(attempts, request);
    next();
  };
}

/** 429 for a throttled try; any other error goes on to the app's handler. */
const answerThrottled: ErrorRequestHandler = (error: unknown, _request, response, next) => {
  const retryAfterSeconds = isCatalystError(error) ? error.details.retryAfterSeconds : undefined;
  if (!isCatalystError(error) || typeof retryAfterSeconds !== 'number' || response.headersSent) {
    next(error);
    return;
  }
  response.setHeader('Retry-After', String(retryAfterSeconds));
  sendError(response, { code: error.code, message: error.message, status: 429 });
};

/** A wrong token or code: logged and counted; the failure that throttles the address says so, once a window. */
function refuseAttempt(attempts: AttemptLimiter, logger: Logger) {
  return (request: Request, message: string): void => {
    const remoteAddress = request.socket.remoteAddress;
    logger.warn({ remoteAddress }, message);
    if (attempts.recordFailure(remoteAddress).isNewlyThrottled) {
      logger.warn({ remoteAddress }, THROTTLED_LOG_MESSAGE);
    }
  };
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
