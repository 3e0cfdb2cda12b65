import { describe, expect, it } from 'vitest';
import { formatCost, formatDuration, formatOutcomeLine } from './outcome-line.ts';
import { createPaint } from './paint.ts';

const paint = createPaint(false);
const failedResult = {
  success: false,
  error: 'API Error: 400 scripted',
  subtype: 'success',
  sessionId: 's',
  durationMs: 812,
  costUsd: 0,
  numTurns: 1,
  permissionDenials: [],
};

describe('formatOutcomeLine', () => {
  it('says why a run failed, from its error or else its result', () => {
    expect(formatOutcomeLine({ state: 'failed', result: failedResult }, paint)).toBe(
      'failed: API Error: 400 scripted · 1 turn · 812 ms · $0.0000',
    );
    expect(
      formatOutcomeLine({ state: 'timed_out', error: { message: 'No output for 10 minutes' } }, paint),
    ).toBe('timed out: No output for 10 minutes');
  });

  it('leaves out what an interrupted turn’s result says about the interruption', () => {
    const interrupted = {
      ...failedResult,
      subtype: 'error_during_execution',
      error: '[ede_diagnostic] result_type=user',
    };
    expect(formatOutcomeLine({ state: 'cancelled', result: interrupted }, paint)).toBe(
      'cancelled · 1 turn · 812 ms · $0.0000',
    );
  });

  it('paints the state when colour is on', () => {
    expect(formatOutcomeLine({ state: 'completed' }, createPaint(true))).toBe(
      '\u001b[32mcompleted\u001b[39m',
    );
  });
});

describe('formatDuration and formatCost', () => {
  it('reads as a person would say it', () => {
    expect([formatDuration(850), formatDuration(3449), formatDuration(125_000)]).toEqual([
      '850 ms',
      '3.4 s',
      '2 min 5 s',
    ]);
    expect([formatCost(0.01234), formatCost(12.345)]).toEqual(['$0.0123', '$12.35']);
  });
});
