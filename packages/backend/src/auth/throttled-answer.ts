/**
 * What an address that guessed wrong too often is told (attempt-limiter.ts, issue 39), alike on the login routes,
 * /api and the WebSocket upgrade: a 429 whose Retry-After and sentence give the wait in whole seconds.
 */

/** The one log line, as the address starts to wait; never a line per refused try. */
export const THROTTLED_LOG_MESSAGE = 'too many wrong tokens or pairing codes from this address: throttled';

/** At least 1: `Retry-After: 0` would invite the next try at once. */
export function retryAfterSecondsOf(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

export function throttledMessage(seconds: number): string {
  return `Too many wrong tries from this address: wait ${String(seconds)} s before trying again.`;
}
