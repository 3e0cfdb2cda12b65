import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PAIRING_LIFETIME_MS } from '@catalyst/protocol';

/**
 * One-time pairing codes (issue 29; docs/security.md, "Pairing a phone"): 256 random bits each, good for one
 * redemption within `lifetimeMs` of their making. Only the SHA-256 of a code is kept, in memory: a restart of
 * Catalyst forgets every code, and what is kept opens nothing. A redemption is checked against every live code in
 * constant time, and used, expired and unknown codes are refused alike, so an answer tells nothing of which.
 * At most `maxLive` codes live at once (each opening of "Open on another device" makes one): a new one past that
 * ends the oldest.
 */

export interface PairingCode {
  /** Goes into the link's fragment once, and is never kept. */
  readonly code: string;
  readonly expiresAt: number;
}

export interface PairingCodes {
  create(): PairingCode;
  /** True once for a live code (it is used up then); false for anything else. */
  redeem(candidate: string): boolean;
}

export interface PairingCodesOptions {
  /** Tests move the clock; Date.now otherwise. */
  now?: () => number;
  lifetimeMs?: number;
  maxLive?: number;
}

const CODE_BYTES = 32;
const DEFAULT_MAX_LIVE = 20;

interface LiveCode {
  readonly digest: Buffer;
  readonly expiresAt: number;
}

export function createPairingCodes(options: PairingCodesOptions = {}): PairingCodes {
  const now = options.now ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? PAIRING_LIFETIME_MS;
  const maxLive = options.maxLive ?? DEFAULT_MAX_LIVE;
  let live: LiveCode[] = [];
  const dropExpired = (at: number) => {
    live = live.filter((entry) => at < entry.expiresAt);
  };
  return {
    create() {
      const at = now();
      dropExpired(at);
      const code = randomBytes(CODE_BYTES).toString('base64url');
      const expiresAt = at + lifetimeMs;
      live = [...live, { digest: digestOf(code), expiresAt }].slice(-maxLive);
      return { code, expiresAt };
    },
    redeem(candidate) {
      dropExpired(now());
      const digest = digestOf(candidate);
      // Every live code is compared, the match or not: how long this takes says nothing of which one matched.
      let match: LiveCode | undefined;
      for (const entry of live) {
        if (timingSafeEqual(entry.digest, digest)) match = entry;
      }
      if (match === undefined) return false;
      live = live.filter((entry) => entry !== match);
      return true;
    },
  };
}

function digestOf(code: string): Buffer {
  return createHash('sha256').update(code, 'utf8').digest();
}
