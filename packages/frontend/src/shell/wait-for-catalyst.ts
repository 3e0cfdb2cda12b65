import { isUnreachableStatus } from '../sw/cache-rules.ts';

/**
 * The offline page's retry loop: ask whether Catalyst answers, after 1 s, 2 s, 4 s, then every 5 s, or at once when
 * asked (the browser is back online, the person taps "Try now"); the first time it answers, `onReachable` runs once
 * and the loop ends.
 */

export interface CatalystWatch {
  /** Asks now rather than at the next tick (nothing if a question is already on its way). */
  checkNow(): void;
  stop(): void;
}

export function retryDelayMs(attempt: number): number {
  return Math.min(5_000, 1_000 * 2 ** attempt);
}

export function watchForCatalyst(options: {
  /** Must not reject: false when there is no answer. */
  isReachable: () => Promise<boolean>;
  onReachable: () => void;
}): CatalystWatch {
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isStopped = false;
  let isChecking = false;

  const schedule = () => {
    timer = setTimeout(() => void check(), retryDelayMs(attempt));
    attempt += 1;
  };
  const check = async () => {
    if (isStopped || isChecking) return;
    clearTimeout(timer);
    isChecking = true;
    settle(await options.isReachable());
  };
  /** Stopped while the question was out: its answer no longer matters. */
  const settle = (isReachable: boolean) => {
    isChecking = false;
    if (isStopped) return;
    if (!isReachable) {
      schedule();
      return;
    }
    isStopped = true;
    options.onReachable();
  };

  schedule();
  return {
    checkNow: () => void check(),
    stop: () => {
      isStopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Whether Catalyst answers, asked with a HEAD of the app's root: not a GET, so the service worker never answers it
 * from its cache, and `no-store`, so neither does the browser's HTTP cache.
 */
export async function isCatalystReachable(): Promise<boolean> {
  try {
    const response = await fetch('/', { method: 'HEAD', cache: 'no-store' });
    return !isUnreachableStatus(response.status);
  } catch {
    // No answer at all (refused, reset, offline): not reachable yet; the loop asks again.
    return false;
  }
}
