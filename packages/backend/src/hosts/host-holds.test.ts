import { describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { refuseWhenHeld } from './host-holds.ts';

function refusal(holds: { runs: number; asides: number; queues: number }): CatalystError {
  try {
    refuseWhenHeld('devbox', holds);
  } catch (error) {
    if (error instanceof CatalystError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('refuseWhenHeld (issue 39)', () => {
  it('lets a change through when nothing holds the host', () => {
    expect(() => {
      refuseWhenHeld('devbox', { runs: 0, asides: 0, queues: 0 });
    }).not.toThrow();
  });

  it('names what holds it: runs, asides, queues going or paused', () => {
    const paused = refusal({ runs: 0, asides: 0, queues: 1 });
    expect(paused.code).toBe('RUN_IN_PROGRESS');
    expect(paused.message).toBe(
      'devbox is in use (a queue (going or paused)): change or remove the host once they have ended, or stop them first.',
    );
    const all = refusal({ runs: 2, asides: 1, queues: 3 });
    expect(all.message).toContain('(2 runs, an aside and 3 queues (going or paused))');
    expect(all.details).toEqual({ runs: 2, asides: 1, queues: 3 });
  });
});
