import { describe, expect, it } from 'vitest';
import { initLine, successResultLine } from '../../../test/support/cli-line-fixtures.ts';
import { LifecycleHarness } from '../../../test/support/run-lifecycle-harness.ts';

describe('RunLifecycle: the result of a run taken up after a restart', () => {
  it('reports the duration from the run’s start, not from the take-up (issue 40)', () => {
    // The harness's clock starts at 1,000,000 ms: the run began 3 minutes before it was taken up.
    const run = new LifecycleHarness({ runStartedAtMs: 820_000 });
    run.start();
    run.line(initLine());
    run.now += 500;
    const [announce] = run.line(successResultLine());
    expect(announce).toMatchObject({ event: { type: 'claude:result', result: { durationMs: 180_500 } } });
  });

  it('a run begun here counts from its own start', () => {
    const run = new LifecycleHarness();
    run.start();
    run.now += 2_000;
    const [announce] = run.line(successResultLine());
    expect(announce).toMatchObject({ event: { result: { durationMs: 2_000 } } });
  });
});
