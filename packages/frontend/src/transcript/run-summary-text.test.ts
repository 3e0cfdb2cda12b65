import { RelayEventSchema, type CommandResult, type RelayEvent } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { commandResult } from '../../test/support/transcript-fixtures.ts';
import { describeRunHint, describeRunSummary, runSummaryTone } from './run-summary-text.ts';

// The line closing a run (issue 40): a run the CLI stopped at its budget is paused, in one word, as the budget
// notice and the queue say; a failure still says why.

type RunEnded = Extract<RelayEvent, { type: 'run:ended' }>;

const base = { type: 'run:ended', ideaId: 'idea-0123456789abcdef', seq: 9, ts: '2026-01-01T00:00:02.000Z' };
const result: CommandResult = {
  ...commandResult({
    durationMs: 1500,
    numTurns: 1,
    costUsd: 0.0012,
    error: 'Reached maximum budget ($0.001).',
  }),
  subtype: 'error_max_budget_usd',
};

function endedOf(fields: Partial<RunEnded>): RunEnded {
  const ended = RelayEventSchema.parse({ ...base, outcome: 'failed', ...fields });
  if (ended.type !== 'run:ended') throw new Error('a run:ended event expected');
  return ended;
}

describe('the run summary line', () => {
  it('says a run stopped at the budget paused, without the CLI’s sentence or a failure’s look', () => {
    const ended = endedOf({
      error: {
        code: 'BUDGET_EXCEEDED',
        message: 'Claude stopped at the budget it was given (Reached maximum budget ($0.001)).',
      },
    });
    const input = { ended, started: undefined, result };
    expect(describeRunSummary(input)).toBe('Paused at the budget · 1.5 s · 1 turn · $0.0012');
    expect(runSummaryTone(input)).toBe('paused');
    expect(describeRunHint(input)).toBeUndefined();
  });

  it('still says why a run failed', () => {
    const ended = endedOf({ error: { code: 'CLI_FAILED', message: 'Claude exited with code 1.' } });
    const input = { ended, started: undefined, result: undefined };
    expect(describeRunSummary(input)).toBe('Failed — Claude exited with code 1.');
    expect(runSummaryTone(input)).toBe('failed');
  });
});
