import { describe, expect, it } from 'vitest';
import { exitCodeOfAutopilotState, exitCodeOfError, exitCodeOfRunState } from './exit-codes.ts';

describe('exit codes', () => {
  it('maps a run’s end: 0 completed, 1 failed, 3 timed out or connection lost, 130 cancelled', () => {
    expect(exitCodeOfRunState('completed')).toBe(0);
    expect(exitCodeOfRunState('failed')).toBe(1);
    expect(exitCodeOfRunState('timed_out')).toBe(3);
    expect(exitCodeOfRunState('connection_lost')).toBe(3);
    expect(exitCodeOfRunState('cancelled')).toBe(130);
    expect(exitCodeOfRunState('running')).toBe(3);
  });

  it('maps an autopilot’s end the same way', () => {
    expect(exitCodeOfAutopilotState('completed')).toBe(0);
    expect(exitCodeOfAutopilotState('failed')).toBe(1);
    expect(exitCodeOfAutopilotState('cancelled')).toBe(130);
    expect(exitCodeOfAutopilotState('running')).toBe(3);
  });

  it('maps errors: usage 2, no connection 3, anything Catalyst refused 1', () => {
    expect(exitCodeOfError('USAGE')).toBe(2);
    expect(exitCodeOfError('UNREACHABLE')).toBe(3);
    expect(exitCodeOfError('CONNECTION_LOST')).toBe(3);
    expect(exitCodeOfError('UNAUTHORIZED')).toBe(1);
    expect(exitCodeOfError('RUN_IN_PROGRESS')).toBe(1);
    expect(exitCodeOfError('TOKEN_MISSING')).toBe(1);
  });
});
