import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AUTO_ANSWER_DELAY_MS,
  IdeaMetaSchema,
  ModelNameSchema,
  UpdateIdeaBodySchema,
} from './idea.ts';
import { ClientFrameSchema } from './ws-frames.ts';

const older = {
  schemaVersion: 1,
  id: 'idea-0123456789abcdef',
  title: 'Old idea',
  description: '',
  status: 'captured',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  totals: { costUsd: 0, turns: 0, runs: 0, questionsAsked: 0 },
};

describe('idea policies in meta.json', () => {
  it('reads a meta.json written before the policies with their defaults', () => {
    const meta = IdeaMetaSchema.parse(older);
    expect(meta).toMatchObject({
      questionPolicy: 'human',
      autoAnswerDelayMs: DEFAULT_AUTO_ANSWER_DELAY_MS,
      permissionPolicy: 'auto',
      totals: { questionsAnsweredByPerson: 0, questionsAnsweredAutomatically: 0, autoAnswerRetries: 0 },
    });
    expect(meta.humanAnswerLimitMs).toBeUndefined();
  });

  it('still refuses unknown fields and bad policies', () => {
    expect(IdeaMetaSchema.safeParse({ ...older, extra: 1 }).success).toBe(false);
    expect(IdeaMetaSchema.safeParse({ ...older, questionPolicy: 'sometimes' }).success).toBe(false);
  });

  it('accepts a PATCH of the policies alone, and null to remove the answer limit', () => {
    expect(UpdateIdeaBodySchema.safeParse({ permissionPolicy: 'ask' }).success).toBe(true);
    expect(UpdateIdeaBodySchema.safeParse({ humanAnswerLimitMs: null }).success).toBe(true);
    expect(UpdateIdeaBodySchema.safeParse({}).success).toBe(false);
  });
});

describe('answer, dismiss and permission frames', () => {
  const ideaId = 'idea-0123456789abcdef';

  it('takes an answer per question text: a label, free text, or several labels', () => {
    const frame = { type: 'answer', ideaId, questionId: 'q', answers: { A: 'Red', B: ['x', 'y'] } };
    expect(ClientFrameSchema.safeParse(frame).success).toBe(true);
    expect(ClientFrameSchema.safeParse({ ...frame, answers: { A: 3 } }).success).toBe(false);
  });

  it('requires the permission request id and a decision', () => {
    expect(
      ClientFrameSchema.safeParse({ type: 'permission', ideaId, requestId: 'r', decision: 'allow' }).success,
    ).toBe(true);
    expect(ClientFrameSchema.safeParse({ type: 'permission', ideaId, decision: 'allow' }).success).toBe(
      false,
    );
    expect(ClientFrameSchema.safeParse({ type: 'dismiss', ideaId, questionId: 'q' }).success).toBe(true);
  });
});

describe('ModelNameSchema', () => {
  it('takes the CLI’s model names and aliases, never one the command line would read as an option', () => {
    for (const name of ['claude-haiku-4-5', 'claude-sonnet-4-5[1m]', 'haiku', 'us.anthropic.claude:v1']) {
      expect(ModelNameSchema.safeParse(name).success, name).toBe(true);
    }
    for (const name of ['-p', '--dangerously-skip-permissions', '', 'a b', 'x'.repeat(101)]) {
      expect(ModelNameSchema.safeParse(name).success, name).toBe(false);
    }
  });
});
