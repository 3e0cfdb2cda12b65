import { setTimeout as delay } from 'node:timers/promises';
import type { SshConnection } from './ssh-connection.ts';
import { isRetryableConnectError } from './ssh-errors.ts';

/**
 * New connections to one host, at most `maxHandshakes` at a time: more than 10 unauthenticated connections make
 * sshd drop new ones at random (MaxStartups 10:30:100), seen by the client as `Connection lost before handshake`
 * or ECONNRESET. Those, and handshake timeouts, are retried with exponential backoff and jitter
 * (ssh-field-notes.md §4).
 */

export interface HandshakeOptions {
  /** One attempt. */
  connect: () => Promise<SshConnection>;
  attempts: number;
  backoffMs: number;
  /** Checked before each retry: a closed pool stops retrying. */
  shouldGiveUp: () => boolean;
}

export interface HandshakeCounters {
  handshakeAttempts: number;
  handshakeFailures: number;
  peakHandshakesInFlight: number;
}

export interface Handshakes {
  readonly counters: Readonly<HandshakeCounters>;
  inFlight(): number;
  /** Resolves with a connection, or rejects with the last attempt's error. */
  start(): Promise<SshConnection>;
}

export function createHandshakes(options: HandshakeOptions): Handshakes {
  const counters: HandshakeCounters = {
    handshakeAttempts: 0,
    handshakeFailures: 0,
    peakHandshakesInFlight: 0,
  };
  let inFlight = 0;
  const attemptOnce = () => {
    counters.handshakeAttempts++;
    return options.connect();
  };
  return {
    counters,
    inFlight: () => inFlight,
    start: async () => {
      inFlight++;
      counters.peakHandshakesInFlight = Math.max(counters.peakHandshakesInFlight, inFlight);
      try {
        return await connectWithRetry(options, attemptOnce);
      } catch (error) {
        counters.handshakeFailures++;
        throw error;
      } finally {
        inFlight--;
      }
    },
  };
}

async function connectWithRetry(
  options: HandshakeOptions,
  attemptOnce: () => Promise<SshConnection>,
): Promise<SshConnection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce();
    } catch (error) {
      if (attempt >= options.attempts || !isRetryableConnectError(error) || options.shouldGiveUp())
        throw error;
      await delay(options.backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random()));
    }
  }
}
