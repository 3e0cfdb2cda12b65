import { describe, expect, it } from 'vitest';
import { statusAfterRun, statusAtStart } from './idea-status.ts';

describe('an idea’s status', () => {
  it('a build goes to building, then built or failed by its outcome', () => {
    expect(statusAtStart('chatting', 'build')).toBe('building');
    expect(statusAfterRun('building', 'build', 'completed')).toBe('built');
    expect(statusAfterRun('building', 'build', 'failed', 'CLI_FAILED')).toBe('failed');
    expect(statusAfterRun('building', 'build', 'timed_out', 'RUN_TIMED_OUT')).toBe('failed');
  });

  it('a build stopped by the person or at the idea’s budget is not a failure: back to chatting', () => {
    expect(statusAfterRun('building', 'build', 'cancelled')).toBe('chatting');
    expect(statusAfterRun('building', 'build', 'failed', 'BUDGET_EXCEEDED')).toBe('chatting');
  });

  it('a chat never changes built or failed, a budget stop included', () => {
    expect(statusAtStart('built', 'chat')).toBe('built');
    expect(statusAfterRun('failed', 'chat', 'failed', 'BUDGET_EXCEEDED')).toBe('failed');
    expect(statusAtStart('captured', 'chat')).toBe('chatting');
  });
});
