import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { createAttemptLimiter, type AttemptLimiter } from './attempt-limiter.ts';
import { retryAfterSecondsOf, throttledMessage } from './throttled-answer.ts';
import { createBrowserLogins, type BrowserLogin, type BrowserLogins } from './browser-logins.ts';
import { DEFAULT_SESSION_DAYS } from '../server/config.ts';
import {
  createLoginKeys,
  SESSION_COOKIE,
  sessionKeyFromProtocols,
  type Login,
  type LoginKeys,
} from './login-cookie.ts';

/**
 * Who may talk to Catalyst: an API client that presents the token in an `Authorization: Bearer` header, or a
 * browser that logged in and presents both halves of its session (login-cookie.ts): the HttpOnly cookie and the
 * key its page keeps. Never the token in a query string on the API or the WebSocket (it would end up in histories
 * and logs), never the token in a cookie (a cookie goes to every port of its host). Browsers also have to come from
 * the app's own origin (or one configured), which stops cross-site WebSocket hijacking. The expected token is
 * kept only as a digest and an HMAC key, so this object holds nothing worth logging.
 *
 * Only the Bearer scheme is Catalyst's: a reverse proxy with HTTP Basic auth has the browser send
 * `Authorization: Basic …` on every request, which is judged by its session as if the header were absent (issue 25).
 * A session is good while the server keeps it (browser-logins.ts): until a logout, a sign-out from another
 * browser, or CATALYST_SESSION_DAYS after its login.
 *
 * A Bearer header is a try at the token, so it counts with wrong logins against the client address (attempt-limiter.ts,
 * issue 39): a wrong one is a failure, and while the address waits every Bearer from it is refused with 429 unjudged,
 * the right one too. A request with no credential is no guess (the page asks before it logs in), nor is a session
 * the server does not know: its id is 256 random bits and its key an HMAC under the token, nothing to guess at, and
 * counting it would throttle a browser whose session simply ended. Neither is refused with 429: they get 401.
 */

export type OriginVerdict = 'absent' | 'allowed' | 'forbidden';

export type RequestVerdict =
  | { ok: true }
  /** `isNewlyThrottled`: this wrong Bearer made its address wait, the one moment worth a log line. */
  | { ok: false; status: 401; code: 'UNAUTHORIZED'; message: string; isNewlyThrottled: boolean }
  | { ok: false; status: 429; code: 'UNAUTHORIZED'; message: string; retryAfterSeconds: number }
  | { ok: false; status: 403; code: 'FORBIDDEN_ORIGIN'; message: string };

export interface Auth {
  /** Constant-time whatever the candidate's length. */
  isValidToken(candidate: string): boolean;
  /** A Bearer header when present, else the session cookie with its key (header, or WebSocket subprotocol). */
  isAuthenticated(request: IncomingMessage): boolean;
  /** The browser session a request is let in by; undefined for a Bearer header or no valid session. */
  loginOf(request: IncomingMessage): BrowserLogin | undefined;
  /** A new browser session, for a login that presented the token or a pairing code; saved when this resolves. */
  startLogin(name: string, origin?: { isPaired: boolean }): Promise<Login>;
  /**
   * The live session whose cookie a login request carries (issue 40: opening the login link again must not add
   * another identical browser to the list); undefined when it carries none. Only after the token was checked.
   */
  keptLogin(request: IncomingMessage): Login | undefined;
  /** The signed-in browsers. */
  readonly logins: BrowserLogins;
  /** Wrong tokens and pairing codes per client address (attempt-limiter.ts): guessing is slowed down. */
  readonly attempts: AttemptLimiter;
  /** `absent` for non-browser clients, which must then hold the token (checkRequest requires it anyway). */
  checkOrigin(request: IncomingMessage): OriginVerdict;
  /**
   * Token first (401; 429 for a Bearer while its address waits, and a wrong Bearer counted), then origin (403): what
   * both the API and the WebSocket upgrade require.
   */
  checkRequest(request: IncomingMessage): RequestVerdict;
}

export interface AuthOptions {
  token: string;
  /** Origins allowed besides the app's own (`http(s)://<Host header>`), e.g. a dev server's. */
  allowedOrigins?: readonly string[];
  /** Where logins are kept (logins-file.ts); in memory only, for the default lifetime, when not given. */
  logins?: BrowserLogins;
  /** The default limiter (5 free failures, then 5 s doubling to 60 s) when not given. */
  attempts?: AttemptLimiter;
}

export const UNAUTHORIZED_MESSAGE =
  'This needs Catalyst’s access token: open the login link Catalyst printed when it started, or send an Authorization: Bearer header.';
export const FORBIDDEN_ORIGIN_MESSAGE =
  'This request comes from a page Catalyst does not serve, so it is refused; add its origin to CATALYST_ALLOWED_ORIGINS if it is yours.';

export function createAuth(options: AuthOptions): Auth {
  const expected = digestOf(options.token);
  const extraOrigins = new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase()));
  const isValidToken = (candidate: string): boolean => timingSafeEqual(digestOf(candidate), expected);
  const keys = createLoginKeys(options.token);
  const logins = options.logins ?? inMemoryLogins();
  const loginOf = (request: IncomingMessage) => presentedLogin(request, keys, logins);
  const isAuthenticated = (request: IncomingMessage): boolean => {
    const header = request.headers.authorization;
    if (isBearer(header)) {
      const presented = bearerToken(header ?? '');
      return presented !== undefined && isValidToken(presented);
    }
    return loginOf(request) !== undefined;
  };
  const checkOrigin = (request: IncomingMessage) => originVerdict(request, extraOrigins);
  const attempts = options.attempts ?? createAttemptLimiter();
  const checkRequest = (request: IncomingMessage): RequestVerdict => {
    const header = request.headers.authorization;
    if (isBearer(header)) {
      const refusal = checkBearer(request, { header: header ?? '', attempts, isValidToken });
      if (refusal !== undefined) return refusal;
    } else if (loginOf(request) === undefined) {
      return unauthorizedVerdict(false);
    }
    if (checkOrigin(request) === 'forbidden') {
      return { ok: false, status: 403, code: 'FORBIDDEN_ORIGIN', message: FORBIDDEN_ORIGIN_MESSAGE };
    }
    return { ok: true };
  };
  return {
    isValidToken,
    isAuthenticated,
    loginOf,
    async startLogin(name, origin) {
      const login = keys.startLogin();
      await logins.add(login.id, name, origin);
      return login;
    },
    keptLogin(request) {
      const id = cookieValues(request.headers.cookie, SESSION_COOKIE).find(
        (candidate) => logins.use(candidate) !== undefined,
      );
      return id === undefined ? undefined : keys.loginOf(id);
    },
    logins,
    attempts,
    checkOrigin,
    checkRequest,
  };
}

/** Judged only while its address may try; a wrong one counted. Undefined for the right token. */
function checkBearer(
  request: IncomingMessage,
  judge: { header: string; attempts: AttemptLimiter; isValidToken: (candidate: string) => boolean },
): RequestVerdict | undefined {
  const address = request.socket.remoteAddress;
  const verdict = judge.attempts.check(address);
  if (!verdict.isAllowed) return throttledVerdict(verdict.retryAfterMs);
  const presented = bearerToken(judge.header);
  if (presented !== undefined && judge.isValidToken(presented)) return undefined;
  return unauthorizedVerdict(judge.attempts.recordFailure(address).isNewlyThrottled);
}

function originVerdict(request: IncomingMessage, extraOrigins: ReadonlySet<string>): OriginVerdict {
  const origin = request.headers.origin;
  if (origin === undefined) return 'absent';
  const normalized = origin.toLowerCase();
  if (extraOrigins.has(normalized) || ownOrigins(request.headers.host).includes(normalized)) return 'allowed';
  return 'forbidden';
}

function unauthorizedVerdict(isNewlyThrottled: boolean): RequestVerdict {
  return { ok: false, status: 401, code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE, isNewlyThrottled };
}

function throttledVerdict(retryAfterMs: number): RequestVerdict {
  const retryAfterSeconds = retryAfterSecondsOf(retryAfterMs);
  const message = throttledMessage(retryAfterSeconds);
  return { ok: false, status: 429, code: 'UNAUTHORIZED', message, retryAfterSeconds };
}

/** Both halves, made under the token, of a session the server still keeps; never for a Bearer request. */
function presentedLogin(
  request: IncomingMessage,
  keys: LoginKeys,
  logins: BrowserLogins,
): BrowserLogin | undefined {
  if (isBearer(request.headers.authorization)) return undefined;
  const key = presentedSessionKey(request);
  if (key === undefined) return undefined;
  // Every cookie of that name: a page on another port of this host (a preview, a dev server) can set one with
  // a more specific path, which the browser then sends first; it must not lock the person out.
  for (const id of cookieValues(request.headers.cookie, SESSION_COOKIE)) {
    const session = keys.isValidLogin(id, key) ? logins.use(id) : undefined;
    if (session !== undefined) return session;
  }
  return undefined;
}

function inMemoryLogins(): BrowserLogins {
  return createBrowserLogins({
    lifetimeMs: DEFAULT_SESSION_DAYS * 24 * 3_600_000,
    logger: pino({ level: 'silent' }),
    save: () => Promise.resolve(),
  });
}

/**
 * Hashing both sides first gives timingSafeEqual the equal-length inputs it requires, so neither the length nor
 * the content of the expected token leaks through timing.
 */
export function tokensEqual(candidate: string, expected: string): boolean {
  return timingSafeEqual(digestOf(candidate), digestOf(expected));
}

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The page's half of a session: the header on HTTP, the subprotocol on a WebSocket upgrade. */
function presentedSessionKey(request: IncomingMessage): string | undefined {
  const header = request.headers[SESSION_KEY_HEADER];
  if (typeof header === 'string') return header;
  return sessionKeyFromProtocols(request.headers['sec-websocket-protocol']);
}

/** Whether an `Authorization` header is Catalyst's, the Bearer scheme (case-insensitive); any other is a proxy's. */
function isBearer(header: string | undefined): boolean {
  return header !== undefined && /^\s*Bearer(?:\s|$)/i.test(header);
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else undefined. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/** The page origins a browser sends when it loaded the app from this server, judged by the Host it asked for. */
function ownOrigins(host: string | undefined): string[] {
  if (host === undefined || host === '') return [];
  const normalized = host.toLowerCase();
  return [`http://${normalized}`, `https://${normalized}`];
}

/**
 * Every value of the cookies named `name` in a `Cookie` header (RFC 6265 §4.2), in the order the browser sent them
 * (the most specific path first), percent-decoded; a value that does not decode is skipped.
 */
export function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const pair of (header ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals <= 0 || pair.slice(0, equals).trim() !== name) continue;
    const raw = pair.slice(equals + 1).trim();
    const value = decodeCookieValue(
      raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw,
    );
    if (value !== undefined) values.push(value);
  }
  return values;
}

function decodeCookieValue(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
