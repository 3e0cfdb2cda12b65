import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { runViewsOf } from './run-views.ts';

const ideaId = 'idea-0123456789abcdef';
let seq = 0;
const at = (type: RelayEvent['type'], fields: Record<string, unknown>): RelayEvent =>
  ({ ideaId, seq: ++seq, ts: `2026-11-25T10:00:0${String(seq)}.000Z`, type, ...fields }) as RelayEvent;

describe('runViewsOf', () => {
  it('tells a run by its start, ended by its first run:ended, with result and error', () => {
    const result = {
      success: true,
      subtype: 'success',
      sessionId: 's',
      durationMs: 5,
      durationApiMs: 4,
      numTurns: 1,
      costUsd: 0.01,
      result: 'done',
    };
    const views = runViewsOf([
      at('run:started', { runId: 'a', mode: 'build', message: 'Build it.' }),
      at('claude:text', { runId: 'a', text: 'Working.' }),
      at('run:ended', { runId: 'a', outcome: 'completed', result }),
      at('run:ended', { runId: 'a', outcome: 'connection_lost' }),
      at('run:ended', { runId: 'orphan', outcome: 'failed' }),
      at('run:started', { runId: 'b', mode: 'chat', message: 'And now?' }),
    ]);
    expect(views).toEqual([
      {
        id: 'a',
        ideaId,
        mode: 'build',
        message: 'Build it.',
        state: 'completed',
        startedAt: '2026-11-25T10:00:01.000Z',
        endedAt: '2026-11-25T10:00:03.000Z',
        result,
      },
      {
        id: 'b',
        ideaId,
        mode: 'chat',
        message: 'And now?',
        state: 'running',
        startedAt: '2026-11-25T10:00:06.000Z',
      },
    ]);
  });
});
