import { PAIRING_PATH, SESSION_KEY_PROTOCOL_PREFIX, pairingCodeOf } from '@catalyst/protocol';
import { writeWorkerSessionKey } from '../sw/worker-session-key.ts';

/**
 * The page's half of its login (the other half is the HttpOnly cookie; docs/security.md, "The browser session").
 * It lives in this origin's localStorage, which no page of another port or host can read, unlike a cookie, which
 * the browser sends to every port of its host.
 */

const STORAGE_NAME = 'catalyst.sessionKey';

export function readSessionKey(): string | undefined {
  return localStorage.getItem(STORAGE_NAME) ?? undefined;
}

export function storeSessionKey(key: string): void {
  localStorage.setItem(STORAGE_NAME, key);
}

/** After a logout: the key of an ended session opens nothing, but there is no reason to keep it. */
export function clearSessionKey(): void {
  localStorage.removeItem(STORAGE_NAME);
  // The service worker's copy too (push on this device, notify/push-device.ts); none where there is no IndexedDB.
  if (typeof indexedDB !== 'undefined') {
    writeWorkerSessionKey(undefined).catch((error: unknown) => {
      console.warn('Catalyst could not forget the service worker`s copy of the session key.', error);
    });
  }
}

/** What the WebSocket offers as subprotocols: a browser cannot set headers on a WebSocket. */
export function sessionProtocols(): string[] {
  const key = readSessionKey();
  return key === undefined ? [] : [`${SESSION_KEY_PROTOCOL_PREFIX}${key}`];
}

/**
 * The token of the printed link `/login#token=…`: read once, before the app renders, and wiped from the address
 * bar and the session history at once. The fragment never reached any server.
 */
export function takeLinkToken(): string | undefined {
  if (location.pathname !== '/login') return undefined;
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  history.replaceState(null, '', '/');
  return token === '' ? undefined : token;
}

/**
 * The code of a pairing link `/pair#code=…` (issue 29), the same way: read once, before the app renders, and wiped
 * from the address bar and the session history at once, so a reload or Back cannot post it again.
 */
export function takePairingCode(): string | undefined {
  if (location.pathname !== PAIRING_PATH) return undefined;
  const code = pairingCodeOf(location.hash);
  history.replaceState(null, '', '/');
  return code;
}
