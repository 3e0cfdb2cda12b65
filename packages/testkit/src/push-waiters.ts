import type { IncomingHttpHeaders } from 'node:http';

export interface ReceivedPush {
  readonly endpoint: string;
  /** The decrypted body, parsed when it is JSON, else its text. */
  readonly payload: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly receivedAt: number;
}

export interface PushRefusal {
  readonly endpoint: string;
  readonly status: number;
  readonly reason: string;
}

/**
 * The mock push service's awaitables: each wait is settled by the arrival it waits for (no polling), fails at once
 * when the service refuses a request (the sender sent something a push service would not take), and fails after
 * its deadline, saying what did arrive.
 */

interface Waiter {
  /** Settles the wait when it can; true once settled. */
  readonly check: () => boolean;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const DEFAULT_TIMEOUT_MS = 5_000;

export function createPushWaiters(messages: readonly ReceivedPush[], refusals: readonly PushRefusal[]) {
  const waiters = new Set<Waiter>();
  let handedOut = 0;
  let isClosed = false;

  const describe = () =>
    `${messages.length} message(s) and ${refusals.length} refusal(s) arrived at the mock push service`;

  function wait<T>(take: () => T | undefined, what: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<T> {
    if (isClosed) return Promise.reject(new Error('the mock push service is closed'));
    const refusalsBefore = refusals.length;
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          const refusal = refusals[refusalsBefore];
          if (refusal !== undefined) {
            settle({
              error: new Error(`the mock push service refused a push (${refusal.status}): ${refusal.reason}`),
            });
            return true;
          }
          const value = take();
          if (value === undefined) return false;
          settle({ value });
          return true;
        },
        reject: (error) => {
          settle({ error });
        },
        timer: setTimeout(() => {
          settle({ error: new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${describe()}`) });
        }, timeoutMs),
      };
      const settle = (outcome: { error: Error } | { value: T }) => {
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome.value);
      };
      if (!waiter.check()) waiters.add(waiter);
    });
  }

  return {
    changed(): void {
      for (const waiter of [...waiters]) waiter.check();
    },
    nextMessage(timeoutMs?: number): Promise<ReceivedPush> {
      return wait(
        () => {
          const message = messages[handedOut];
          if (message !== undefined) handedOut += 1;
          return message;
        },
        'the next push message',
        timeoutMs,
      );
    },
    waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedPush[]> {
      return wait(
        () => (messages.length >= count ? messages.slice(0, count) : undefined),
        `${count} push message(s)`,
        timeoutMs,
      );
    },
    close(): void {
      isClosed = true;
      for (const waiter of [...waiters]) waiter.reject(new Error('the mock push service closed'));
    },
  };
}
