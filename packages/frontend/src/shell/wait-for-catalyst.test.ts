import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryDelayMs, watchForCatalyst } from './wait-for-catalyst.ts';

// The offline page asks again and again, less often as time goes by, and comes back exactly once, the first time
// Catalyst answers.

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A Catalyst that stays down for `downFor` questions, then answers. */
function catalystDownFor(downFor: number) {
  let asked = 0;
  const isReachable = vi.fn(() => Promise.resolve(++asked > downFor));
  const onReachable = vi.fn();
  return { isReachable, onReachable };
}

describe('watchForCatalyst', () => {
  it('asks after 1, 2 and 4 s, then every 5 s, and comes back once when Catalyst answers', async () => {
    const catalyst = catalystDownFor(4);
    watchForCatalyst(catalyst);
    expect(catalyst.isReachable).not.toHaveBeenCalled();
    for (const [waitMs, asked] of [
      [999, 0],
      [1, 1],
      [2_000, 2],
      [4_000, 3],
      [5_000, 4],
    ] as const) {
      await vi.advanceTimersByTimeAsync(waitMs);
      expect(catalyst.isReachable).toHaveBeenCalledTimes(asked);
    }
    expect(catalyst.onReachable).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(catalyst.onReachable).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(catalyst.isReachable).toHaveBeenCalledTimes(5);
    expect(catalyst.onReachable).toHaveBeenCalledOnce();
  });

  it('asks at once when told to, once however often it is told, and not at all once stopped', async () => {
    const catalyst = catalystDownFor(1);
    const watch = watchForCatalyst(catalyst);
    watch.checkNow();
    watch.checkNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(catalyst.isReachable).toHaveBeenCalledOnce();
    watch.stop();
    watch.checkNow();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(catalyst.isReachable).toHaveBeenCalledOnce();
    expect(catalyst.onReachable).not.toHaveBeenCalled();
  });
});

describe('retryDelayMs', () => {
  it('grows from 1 s and never waits longer than 5 s', () => {
    expect([0, 1, 2, 3, 10, 100].map(retryDelayMs)).toEqual([1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });
});
