import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to Catalyst: whoever presents the token, in an `Authorization: Bearer` header or in the cookie the
 * login link sets; never in a query string on the API or the WebSocket (it would end up in histories and logs).
 * Browsers also have to come from the app's own origin (or one configured), which stops cross-site WebSocket
 * hijacking even if a cookie were sent. The expected token is kept only as a digest, so this object holds
 * nothing worth logging.
 */

export const TOKEN_COOKIE = 'catalyst_token';

export type OriginVerdict = 'absent' | 'allowed' | 'forbidden';

export type RequestVerdict =
  | { ok: true }
  | { ok: false; status: 401; code: 'UNAUTHORIZED'; message: string }
  | { ok: false; status: 403; code: 'FORBIDDEN_ORIGIN'; message: string };

export interface Auth {
  /** Constant-time whatever the candidate's length. */
  isValidToken(candidate: string): boolean;
  /** The bearer header when present, else the cookie. */
  isAuthenticated(request: IncomingMessage): boolean;
  /** `absent` for non-browser clients, which must then hold the token (checkRequest requires it anyway). */
  checkOrigin(request: IncomingMessage): OriginVerdict;
  /** Token first (401), then origin (403): what both the API and the WebSocket upgrade require. */
  checkRequest(request: IncomingMessage): RequestVerdict;
}

export interface AuthOptions {
  token: string;
  /** Origins allowed besides the app's own (`http(s)://<Host header>`), e.g. a dev server's. */
  allowedOrigins?: readonly string[];
}

export const UNAUTHORIZED_MESSAGE =
  'This needs Catalyst’s access token: open the login link Catalyst printed when it started, or send an Authorization: Bearer header.';
export const FORBIDDEN_ORIGIN_MESSAGE =
  'This request comes from a page Catalyst does not serve, so it is refused; add its origin to CATALYST_ALLOWED_ORIGINS if it is yours.';

export function createAuth(options: AuthOptions): Auth {
  const expected = digestOf(options.token);
  const extraOrigins = new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase()));
  const isValidToken = (candidate: string): boolean => timingSafeEqual(digestOf(candidate), expected);
  const isAuthenticated = (request: IncomingMessage): boolean => {
    const presented = presentedToken(request);
    return presented !== undefined && isValidToken(presented);
  };
  const checkOrigin = (request: IncomingMessage): OriginVerdict => {
    const origin = request.headers.origin;
    if (origin === undefined) return 'absent';
    const normalized = origin.toLowerCase();
    if (extraOrigins.has(normalized) || ownOrigins(request.headers.host).includes(normalized))
      return 'allowed';
    return 'forbidden';
  };
  const checkRequest = (request: IncomingMessage): RequestVerdict => {
    if (!isAuthenticated(request)) {
      return { ok: false, status: 401, code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE };
    }
    if (checkOrigin(request) === 'forbidden') {
      return { ok: false, status: 403, code: 'FORBIDDEN_ORIGIN', message: FORBIDDEN_ORIGIN_MESSAGE };
    }
    return { ok: true };
  };
  return { isValidToken, isAuthenticated, checkOrigin, checkRequest };
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

function presentedToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return bearerToken(header);
  return parseCookies(request.headers.cookie).get(TOKEN_COOKIE);
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
 * A `Cookie` header (RFC 6265 §4.2) → name/value pairs, values percent-decoded. The first of two same-named
 * cookies wins (browsers send the most specific path first); a value that does not decode is skipped.
 */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    const raw = pair.slice(equals + 1).trim();
    const value = decodeCookieValue(
      raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw,
    );
    if (name !== '' && value !== undefined && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

function decodeCookieValue(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page makes the browser send it), Path=/ (the API
 * and the WebSocket). A session cookie: it ends with the browser session, and the login link sets it again.
 * Secure when the page came over TLS; over plain http on loopback a Secure cookie would not be stored everywhere.
 */
export function serializeLoginCookie(token: string, options: { secure: boolean }): string {
  const attributes = ['HttpOnly', 'SameSite=Strict', 'Path=/', ...(options.secure ? ['Secure'] : [])];
  return [`${TOKEN_COOKIE}=${encodeURIComponent(token)}`, ...attributes].join('; ');
}
