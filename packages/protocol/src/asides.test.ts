import { describe, expect, it } from 'vitest';
import { AskAsideBodySchema, asideViewsOf } from './asides.ts';
import type { RelayEvent } from './relay-events.ts';

const ideaId = 'idea-0123456789abcdef';
const at = (seq: number) => ({ ideaId, seq, ts: `2026-01-01T00:00:0${String(seq)}.000Z` });

describe('asides read from the history', () => {
  it('pairs each asking with its ending, oldest first, and leaves an unanswered one asking', () => {
    const events: RelayEvent[] = [
      { ...at(1), type: 'aside:asked', asideId: 'a1', question: 'Why SQLite?', model: 'haiku' },
      { ...at(2), type: 'claude:text', text: 'Building…', messageId: 'm', parentToolUseId: null },
      { ...at(3), type: 'aside:asked', asideId: 'a2', question: 'And tests?', model: 'haiku' },
      {
        ...at(4),
        type: 'aside:answered',
        asideId: 'a1',
        text: 'It is simple.',
        costUsd: 0.01,
        durationMs: 900,
      },
      { ...at(5), type: 'aside:asked', asideId: 'a3', question: 'Gone?', model: 'haiku' },
      {
        ...at(6),
        type: 'aside:failed',
        asideId: 'a3',
        error: { code: 'CLI_FAILED', message: 'No conversation' },
      },
    ];
    expect(asideViewsOf(events)).toEqual([
      expect.objectContaining({ id: 'a1', state: 'answered', answer: 'It is simple.', costUsd: 0.01 }),
      expect.objectContaining({ id: 'a2', state: 'asking', question: 'And tests?' }),
      expect.objectContaining({
        id: 'a3',
        state: 'failed',
        error: { code: 'CLI_FAILED', message: 'No conversation' },
      }),
    ]);
    expect(asideViewsOf(events)[0]).toMatchObject({ askedAt: at(1).ts, endedAt: at(4).ts, durationMs: 900 });
  });

  it('leaves out an ending whose asking is not among the events', () => {
    const events: RelayEvent[] = [
      { ...at(1), type: 'aside:answered', asideId: 'a0', text: 'Late.', costUsd: 0, durationMs: 1 },
    ];
    expect(asideViewsOf(events)).toEqual([]);
  });

  it('refuses an empty question and a model name that is not one', () => {
    expect(AskAsideBodySchema.safeParse({ question: '   ' }).success).toBe(false);
    expect(AskAsideBodySchema.safeParse({ question: 'Why?', model: 'x y' }).success).toBe(false);
    expect(AskAsideBodySchema.parse({ question: ' Why? ', model: 'claude-haiku-4-5' })).toEqual({
      question: 'Why?',
      model: 'claude-haiku-4-5',
    });
  });
});
