/**
 * What the sender does with a push service's answer (RFC 8030 §5–8, and what FCM, Mozilla and Apple answer), and
 * how long it waits before trying again. Pure.
 */

export type PushOutcome =
  /** 2xx: the push service has the message. */
  | { kind: 'delivered' }
  /** 404, 410: the subscription has ended (unsubscribed, expired); never send to it again. */
  | { kind: 'gone' }
  /** 429, 5xx, no answer: try again later, no sooner than `retryAfterMs` when the service said. */
  | { kind: 'retry'; retryAfterMs?: number }
  /** Any other 4xx: this message will never be taken (too big, bad credentials); trying again would not help. */
  | { kind: 'refused' };

export interface BackoffPolicy {
  /** The first wait; each next one doubles. */
  baseDelayMs: number;
  /** A wait longer than this (a Retry-After of an hour) drops the message: it would arrive too late to matter. */
  maxDelayMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
}

export function classifyPushAnswer(status: number, retryAfter: string | undefined, now: number): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 404 || status === 410) return { kind: 'gone' };
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter, now);
    return retryAfterMs === undefined ? { kind: 'retry' } : { kind: 'retry', retryAfterMs };
  }
  return { kind: 'refused' };
}

/** RFC 9110 §10.2.3: a number of seconds, or an HTTP date; undefined when absent or neither. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP date names its day or month; Date.parse alone would take "-5" for a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before attempt `attempt + 1` after attempt `attempt` (from 1) failed with `outcome`;
 * undefined when no attempt is left, or the wait would be longer than `maxDelayMs`. The push service's
 * Retry-After is a floor: the doubling wait is used when it is longer.
 */
export function retryDelayMs(
  attempt: number,
  outcome: Extract<PushOutcome, { kind: 'retry' }>,
  policy: BackoffPolicy,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
  const delay = Math.max(backoff, outcome.retryAfterMs ?? 0);
  return delay > policy.maxDelayMs ? undefined : delay;
}
