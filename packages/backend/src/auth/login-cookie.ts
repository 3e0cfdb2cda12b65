import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_KEY_PROTOCOL_PREFIX } from '@catalyst/protocol';

/**
 * A browser's login, in two halves that are worthless apart (docs/security.md, "The browser session"):
 *
 * - the session id, in the HttpOnly cookie `catalyst_session`, which no script can read; but a cookie belongs to
 *   a host name, not to a port, so the browser also sends it to every other server on the same name (a dev
 *   server, an `ssh -L` forward of an app Claude wrote), or on any name such a server sends the browser to;
 * - the session key, HMAC-SHA256 of the id under the token, which the page keeps in its origin's
 *   `localStorage` (scheme, host *and port*: no other server's page can read it) and sends as the
 *   `X-Catalyst-Key` header, or on the WebSocket as the subprotocol `catalyst-key.<key>` (a browser cannot set
 *   headers on a WebSocket).
 *
 * Whoever receives the cookie alone cannot compute the key without the token. Besides, the server keeps which
 * sessions are still good (browser-logins.ts: a digest of the id, never the id): a session ends when it logs
 * out, is signed out from another browser, CATALYST_SESSION_DAYS after its login, or when the token changes; it
 * survives a restart of Catalyst.
 */

export const SESSION_COOKIE = 'catalyst_session';

const KEY_LABEL = 'catalyst browser session key v1\0';
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const SESSION_KEY = /^[A-Za-z0-9_-]{43}$/;

export interface Login {
  /** The cookie's value. */
  readonly id: string;
  /** What the page presents beside the cookie. */
  readonly key: string;
}

export interface LoginKeys {
  startLogin(): Login;
  /** The two halves of a session already started (its cookie id): for a browser that logs in again. */
  loginOf(id: string): Login;
  /** Constant-time; false for anything malformed. */
  isValidLogin(id: string, key: string): boolean;
}

export function createLoginKeys(token: string): LoginKeys {
  const keyOf = (id: string): Buffer =>
    createHmac('sha256', token)
      .update(KEY_LABEL + id, 'utf8')
      .digest();
  return {
    startLogin() {
      const id = randomBytes(32).toString('base64url');
      return { id, key: keyOf(id).toString('base64url') };
    },
    loginOf(id) {
      return { id, key: keyOf(id).toString('base64url') };
    },
    isValidLogin(id, key) {
      if (!SESSION_ID.test(id) || !SESSION_KEY.test(key)) return false;
      return timingSafeEqual(keyOf(id), Buffer.from(key, 'base64url'));
    },
  };
}

/** The key a WebSocket upgrade offers as one of its subprotocols (`Sec-WebSocket-Protocol: a, b`). */
export function sessionKeyFromProtocols(header: string | undefined): string | undefined {
  for (const protocol of (header ?? '').split(',')) {
    const trimmed = protocol.trim();
    if (trimmed.startsWith(SESSION_KEY_PROTOCOL_PREFIX))
      return trimmed.slice(SESSION_KEY_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page makes the browser send it), Path=/ (the
 * API and the WebSocket). A session cookie: it ends with the browser session. Secure when the page is served over
 * TLS (CATALYST_PUBLIC_URL is https, or the request itself came over TLS).
 */
export function serializeSessionCookie(id: string, options: { secure: boolean }): string {
  const attributes = ['HttpOnly', 'SameSite=Strict', 'Path=/', ...(options.secure ? ['Secure'] : [])];
  return [`${SESSION_COOKIE}=${id}`, ...attributes].join('; ');
}

/** The cookie's removal at a logout: the same attributes (a Secure cookie is replaced only by a Secure one), gone. */
export function serializeClearedSessionCookie(options: { secure: boolean }): string {
  const attributes = [
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    'Max-Age=0',
    ...(options.secure ? ['Secure'] : []),
  ];
  return [`${SESSION_COOKIE}=`, ...attributes].join('; ');
}
