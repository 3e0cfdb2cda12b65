import { describe, expect, it } from 'vitest';
import {
  initLine,
  interruptedResultLine,
  successResultLine,
} from '../../../test/support/cli-line-fixtures.ts';
import { LifecycleHarness, finishesOf, typesOf } from '../../../test/support/run-lifecycle-harness.ts';

// A turn in a process that lives on (issue 11; run-commands.ts `warm`): the run ends at its result and the
// process stays; the turn's cost is what the cumulative total grew by.

function warmRun(costBaseUsd: number): LifecycleHarness {
  const run = new LifecycleHarness({ warm: { costBaseUsd } });
  run.start();
  run.line(initLine());
  return run;
}

describe('a warm turn in the run lifecycle', () => {
  it('ends the run at its result, keeps the process, and counts only this turn’s cost', () => {
    const run = warmRun(0.001);
    const ended = run.line({ ...successResultLine('Done.'), total_cost_usd: 0.00235 });
    expect(typesOf(ended)).not.toContain('end_input');
    expect(typesOf(ended).indexOf('keep_process')).toBeLessThan(typesOf(ended).indexOf('finish'));
    const [finish] = finishesOf(ended);
    expect(finish).toMatchObject({ outcome: 'completed', result: { success: true } });
    expect(finish?.result?.costUsd).toBeCloseTo(0.00135, 8);
    expect(run.lifecycle.isFinished).toBe(true);
    expect(run.timers.size).toBe(0);
  });

  it('a one-turn run still closes the input and waits for the process', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    const ended = run.line(successResultLine('Done.'));
    expect(typesOf(ended)).toContain('end_input');
    expect(typesOf(ended)).not.toContain('keep_process');
    expect(finishesOf(ended)).toEqual([]);
  });

  it('a cancelled warm turn ends its process as a one-turn run does', () => {
    const run = warmRun(0);
    run.cancel();
    const afterInterrupt = run.line(interruptedResultLine());
    expect(typesOf(afterInterrupt)).toContain('end_input');
    expect(typesOf(afterInterrupt)).not.toContain('keep_process');
    const ended = run.outcome({ kind: 'exited', code: 1, signal: null });
    expect(finishesOf(ended)).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
  });
});
