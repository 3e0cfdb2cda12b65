import type { RelayEvent } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { orphanedRunOf } from './orphaned-run.ts';

const base = { ideaId: 'idea-0123456789abcdef', ts: new Date(0).toISOString() };
const started = (seq: number, runId: string): RelayEvent => ({
  ...base,
  seq,
  runId,
  type: 'run:started',
  mode: 'build',
  message: 'go',
});
const textOf = (seq: number, runId: string): RelayEvent => ({
  ...base,
  seq,
  runId,
  type: 'claude:text',
  text: 'hi',
  messageId: 'm',
  parentToolUseId: null,
});
const ended = (seq: number, runId: string): RelayEvent => ({
  ...base,
  seq,
  runId,
  type: 'run:ended',
  outcome: 'completed',
});

describe('orphanedRunOf', () => {
  it('finds a run whose newest event is not its ending, with its mode', () => {
    const events = [started(1, 'a'), ended(2, 'a'), started(3, 'b'), textOf(4, 'b')];
    expect(orphanedRunOf(events)).toEqual({ runId: 'b', mode: 'build' });
  });

  it('finds nothing when every run ended, or there is no run', () => {
    expect(orphanedRunOf([started(1, 'a'), textOf(2, 'a'), ended(3, 'a')])).toBeUndefined();
    expect(orphanedRunOf([])).toBeUndefined();
  });

  it('still finds the orphan when its start is older than the events it was given', () => {
    expect(orphanedRunOf([textOf(300, 'b')])).toEqual({ runId: 'b', mode: undefined });
  });
});
