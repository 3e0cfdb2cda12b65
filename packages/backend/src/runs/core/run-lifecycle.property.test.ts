import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../core/run-outcome.ts';
import {
  apiErrorResultLine,
  askInput,
  assistantLine,
  canUseToolLine,
  initLine,
  interruptMarkerLine,
  interruptedResultLine,
  successResultLine,
  toolResultLine,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import type { RunCommand } from './run-lifecycle.ts';
import { LifecycleHarness, finishesOf } from '../../../test/support/run-lifecycle-harness.ts';

/**
 * Random runs: any order of CLI lines, stderr, cancels, pending questions and passing time (enough to fire every
 * timer), then the host's outcome, then more of the same. Whatever happens, the run ends exactly once.
 */

const lines = [
  initLine(),
  assistantLine({ type: 'text', text: 'hi' }),
  toolResultLine({ content: 'ok' }),
  canUseToolLine('Write', writeInput),
  canUseToolLine('AskUserQuestion', askInput),
  { type: 'control_request', request_id: 'g', request: { subtype: 'mcp_message' } },
  interruptMarkerLine(),
  successResultLine(),
  apiErrorResultLine(),
  interruptedResultLine(),
  { type: 'bogus_type' },
];

const outcomes: RunOutcome[] = [
  { kind: 'exited', code: 0, signal: null },
  { kind: 'exited', code: 1, signal: null },
  { kind: 'exited', code: null, signal: 'SIGKILL' },
  { kind: 'cancelled' },
  { kind: 'lease_lost' },
  { kind: 'max_runtime' },
  { kind: 'connection_lost', message: 'gone' },
  { kind: 'start_failed', code: 'RUN_START_FAILED', message: 'no' },
];

type Step =
  | { kind: 'start' }
  | { kind: 'line'; index: number }
  | { kind: 'stderr' }
  | { kind: 'cancel' }
  | { kind: 'pending'; id: number; isStarting: boolean }
  | { kind: 'advance'; ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'start' }),
  fc.nat({ max: lines.length - 1 }).map((index): Step => ({ kind: 'line', index })),
  fc.constant<Step>({ kind: 'stderr' }),
  fc.constant<Step>({ kind: 'cancel' }),
  fc
    .record({ id: fc.nat({ max: 2 }), isStarting: fc.boolean() })
    .map((p): Step => ({ kind: 'pending', ...p })),
  fc.oneof(fc.nat({ max: 12_000 }), fc.nat({ max: 2_000_000 })).map((ms): Step => ({ kind: 'advance', ms })),
);

function play(run: LifecycleHarness, step: Step): RunCommand[] {
  switch (step.kind) {
    case 'start':
      return run.start();
    case 'line':
      return run.line(lines[step.index] ?? {});
    case 'stderr':
      return run.stderr('warning\n');
    case 'cancel':
      return run.cancel();
    case 'pending':
      return run.pending(`q${step.id}`, step.isStarting);
    case 'advance':
      return run.advance(step.ms);
  }
}

function emitted(commands: readonly RunCommand[], type: string): number {
  return commands.filter((command) => command.type === 'emit' && command.event.type === type).length;
}

const runArbitrary = fc.record({
  before: fc.array(stepArbitrary, { maxLength: 30 }),
  outcome: fc.constantFrom(...outcomes),
  after: fc.array(stepArbitrary, { maxLength: 10 }),
  mode: fc.constantFrom('chat' as const, 'build' as const),
});

describe('RunLifecycle properties', () => {
  it('ends every run with one run:started, one run:ended and one finish, last, with no timer left', () => {
    fc.assert(
      fc.property(runArbitrary, ({ before, outcome, after, mode }) => {
        const run = new LifecycleHarness({ mode });
        for (const step of before) play(run, step);
        run.outcome(outcome);
        for (const step of after) play(run, step);
        const log = run.log;
        expect(finishesOf(log)).toHaveLength(1);
        expect(log.at(-1)?.type).toBe('finish');
        expect(emitted(log, 'run:started')).toBe(1);
        expect(emitted(log, 'run:ended')).toBe(1);
        expect(log.find((command) => command.type === 'emit')).toMatchObject({
          event: { type: 'run:started' },
        });
        const { type: _finish, ...ending } = finishesOf(log)[0] ?? { type: 'finish' };
        const ended = { ideaId: 'idea-0123456789abcdef', runId: 'run-1', type: 'run:ended', ...ending };
        expect(log.at(-2)).toEqual({ type: 'emit', event: ended });
        expect(run.timers.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('never writes to stdin after closing it', () => {
    fc.assert(
      fc.property(runArbitrary, ({ before, outcome, mode }) => {
        const run = new LifecycleHarness({ mode });
        for (const step of before) play(run, step);
        run.outcome(outcome);
        const closedAt = run.log.findIndex((command) => command.type === 'end_input');
        if (closedAt >= 0) expect(run.log.slice(closedAt).map((c) => c.type)).not.toContain('write_line');
      }),
      { numRuns: 500 },
    );
  });

  it('once started, a cancel leads to kill_run within 10 s unless the process ends first', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 30 }), (steps) => {
        const run = new LifecycleHarness();
        run.start();
        for (const step of steps) play(run, step);
        const cancelledAt = run.log.length;
        run.cancel();
        run.advance(10_000);
        const types = run.log.map((command) => command.type);
        // A kill may have come before the cancel (a hang after the result); one is enough.
        expect(types.includes('kill_run') || types.slice(cancelledAt).includes('finish')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('reports cancelled when the person cancelled a live turn, whatever comes next', () => {
    fc.assert(
      fc.property(
        fc.array(stepArbitrary, { maxLength: 20 }),
        fc.constantFrom(...outcomes),
        (steps, outcome) => {
          const run = new LifecycleHarness({ inactivityTimeoutMs: 10_000_000, maxDurationMs: 10_000_000 });
          run.start();
          const interrupts = run.cancel().filter((command) => command.type === 'write_line');
          expect(interrupts).toHaveLength(1);
          for (const step of steps) play(run, step);
          run.outcome(outcome);
          // Ended by the outcome, or before it when the host stayed silent past the kill's grace (stop_give_up).
          expect(finishesOf(run.log)).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('once started, a cancel ends the run within 30 s even when the host never reports an outcome', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 30 }), (steps) => {
        const run = new LifecycleHarness();
        run.start();
        for (const step of steps) play(run, step);
        run.cancel();
        run.advance(30_000);
        expect(finishesOf(run.log)).toHaveLength(1);
        expect(run.timers.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
