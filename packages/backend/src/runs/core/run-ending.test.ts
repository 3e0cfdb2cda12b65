import { describe, expect, it } from 'vitest';
import type { CommandResult } from '@catalyst/protocol';
import { decideEnding, describeInactivityTimeout, formatDuration } from './run-ending.ts';

const result = (success: boolean): CommandResult => ({
  success,
  subtype: success ? 'success' : 'error_max_turns',
  sessionId: 's',
  durationMs: 1,
  costUsd: 0.01,
  numTurns: 2,
  permissionDenials: [],
  ...(success ? {} : { error: 'Reached maximum number of turns (1)' }),
});
const noFacts = { stop: undefined, result: undefined, stderrTail: '' };

describe('formatDuration', () => {
  it.each([
    [600_000, '10 minutes'],
    [60_000, '1 minute'],
    [2_000, '2 seconds'],
    [1_000, '1 second'],
    [90_000, '90 seconds'],
    [3_600_000, '1 hour'],
    [7_200_000, '2 hours'],
    [5_400_000, '90 minutes'],
    [1_500, '1.5 seconds'],
    [250, '250 milliseconds'],
    [1, '1 millisecond'],
    [0, '0 seconds'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('gives the exact timeout sentence', () => {
    expect(describeInactivityTimeout(600_000)).toBe('Claude process timed out (no output for 10 minutes)');
  });
});

describe('decideEnding', () => {
  const exit0 = { kind: 'exited', code: 0, signal: null } as const;

  it('puts a stop first, keeping the result for the totals', () => {
    expect(decideEnding({ ...noFacts, stop: { outcome: 'cancelled' }, result: result(true) }, exit0)).toEqual(
      {
        outcome: 'cancelled',
        result: result(true),
      },
    );
    const timedOut = {
      outcome: 'timed_out',
      message: 'Claude process timed out (no output for 2 seconds)',
    } as const;
    expect(decideEnding({ ...noFacts, stop: timedOut }, { kind: 'connection_lost', message: 'x' })).toEqual({
      outcome: 'timed_out',
      error: { code: 'RUN_TIMED_OUT', message: timedOut.message },
    });
  });

  it('then the result', () => {
    expect(decideEnding({ ...noFacts, result: result(false) }, exit0)).toEqual({
      outcome: 'failed',
      result: result(false),
      error: { code: 'CLI_FAILED', message: 'Reached maximum number of turns (1)' },
    });
  });

  it('then the host, with the last of stderr for an exit without a result', () => {
    const stderrTail = 'x'.repeat(10) + 'No conversation found with session ID: abc\n';
    expect(decideEnding({ ...noFacts, stderrTail }, { kind: 'exited', code: 1, signal: null })).toEqual({
      outcome: 'failed',
      error: {
        code: 'CLI_FAILED',
        message: `Claude exited with code 1 without finishing its turn: ${stderrTail.trim()}`,
      },
    });
  });
});
