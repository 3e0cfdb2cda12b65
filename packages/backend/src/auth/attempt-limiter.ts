import { isIP } from 'node:net';

/**
 * Slows down whoever guesses the token or a pairing code (issue 39): each client address may fail a few times in a
 * window, then has to wait before its next try is even judged, longer after each further failure. A try while it
 * waits is refused unjudged (a right token too: otherwise the refusals would still tell a guess from the token).
 * Successes count for nothing, so a person signing in elsewhere cannot reset an attacker's count on a shared
 * address (a reverse proxy's). Memory is bounded: past `maxAddresses`, the address that failed longest ago is
 * forgotten first. IPv6 addresses count per /64, the block one machine is usually given.
 */

export interface AttemptLimiterOptions {
  /** Failures an address may have in a window before it has to wait. */
  freeFailures?: number;
  /** How long a failure is remembered after the last one. */
  windowMs?: number;
  /** The first wait; each further failure doubles it, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxAddresses?: number;
  now?: () => number;
}

export type AttemptVerdict = { isAllowed: true } | { isAllowed: false; retryAfterMs: number };

export interface FailureOutcome {
  /** The failure that made the address wait for the first time in its window: the one moment worth a log line. */
  readonly isNewlyThrottled: boolean;
}

export interface AttemptLimiter {
  /** Whether a try from `address` may be judged now; before the secret is looked at. */
  check(address: string | undefined): AttemptVerdict;
  recordFailure(address: string | undefined): FailureOutcome;
  /** How many addresses are remembered (bounded by `maxAddresses`). */
  readonly size: number;
}

interface Entry {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
  isReported: boolean;
}

export const DEFAULT_FREE_FAILURES = 5;
const DEFAULTS = {
  freeFailures: DEFAULT_FREE_FAILURES,
  windowMs: 15 * 60_000,
  baseDelayMs: 5_000,
  maxDelayMs: 60_000,
  maxAddresses: 10_000,
};

export function createAttemptLimiter(options: AttemptLimiterOptions = {}): AttemptLimiter {
  const settings = { ...DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const current = (key: string, at: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (at - entry.lastFailureAt < settings.windowMs || at < entry.blockedUntil) return entry;
    entries.delete(key);
    return undefined;
  };
  return {
    check(address) {
      const at = now();
      const entry = current(clientKeyOf(address), at);
      if (entry === undefined || at >= entry.blockedUntil) return { isAllowed: true };
      return { isAllowed: false, retryAfterMs: entry.blockedUntil - at };
    },
    recordFailure(address) {
      const at = now();
      const key = clientKeyOf(address);
      const entry = current(key, at) ?? {
        failures: 0,
        lastFailureAt: at,
        blockedUntil: 0,
        isReported: false,
      };
      entry.failures += 1;
      entry.lastFailureAt = at;
      // Re-inserted, so the Map's order is the order of last failures: the first key is the one to forget.
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > settings.maxAddresses) entries.delete(keyToForget(entries, at) ?? key);
      const excess = entry.failures - settings.freeFailures;
      if (excess < 0) return { isNewlyThrottled: false };
      entry.blockedUntil =
        at + Math.min(settings.baseDelayMs * 2 ** Math.min(excess, 30), settings.maxDelayMs);
      const isNewlyThrottled = !entry.isReported;
      entry.isReported = true;
      return { isNewlyThrottled };
    },
    get size() {
      return entries.size;
    },
  };
}

/** An IPv4 address (also when mapped into IPv6) as is; an IPv6 one by its /64; no address at all is one client. */
export function clientKeyOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address (`::` filled in), lower case without leading zeros; a zone id dropped. */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]?.toLowerCase().split('::') ?? [];
  const groupsOf = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':'));
  const left = groupsOf(head);
  const right = groupsOf(tail);
  const fill = Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => '0');
  return [...left, ...fill, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}

/**
 * Past the cap, the address whose last failure is oldest among those not waiting now: a guesser who rotates through
 * many addresses (a whole IPv6 /48) cannot flush its own waiting ones; when every one waits, the oldest.
 */
function keyToForget(entries: Map<string, { blockedUntil: number }>, at: number): string | undefined {
  for (const [key, entry] of entries) if (entry.blockedUntil <= at) return key;
  return entries.keys().next().value;
}
