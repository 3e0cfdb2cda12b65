import { describe, expect, it } from 'vitest';
import type { CanUseToolRequest } from '@catalyst/protocol';
import { QuestionHandler } from './question-handler.ts';
import {
  MAX_OPTION_LABEL_BYTES,
  MAX_QUESTION_TEXT_BYTES,
  capAnswersForRelay,
  capQuestionItems,
} from './question-capping.ts';

const KIB = 1024;
const hugeQuestion = {
  question: `Which plan? ${'q'.repeat(9 * 1024 * KIB)}`,
  header: 'Plan',
  options: [
    {
      label: `Long ${'l'.repeat(100 * KIB)}`,
      description: 'd'.repeat(2 * 1024 * KIB),
      preview: 'p'.repeat(1024 * KIB),
    },
    { label: 'Short', description: 'The small one' },
  ],
  multiSelect: false,
};

function askRequest(questions: unknown[]): CanUseToolRequest {
  return {
    subtype: 'can_use_tool',
    tool_name: 'AskUserQuestion',
    input: { questions },
    tool_use_id: 'toolu_q',
  };
}

describe('question capping', () => {
  it('caps a 9 MiB question, its labels and every other text, and keeps short ones whole', () => {
    const [shown] = capQuestionItems([hugeQuestion]);
    expect(Buffer.byteLength(shown?.question ?? '')).toBeLessThan(MAX_QUESTION_TEXT_BYTES + 64);
    expect(shown?.question.startsWith('Which plan? qqq')).toBe(true);
    expect(Buffer.byteLength(shown?.options[0]?.label ?? '')).toBeLessThan(MAX_OPTION_LABEL_BYTES + 64);
    expect(Buffer.byteLength(shown?.options[0]?.description ?? '')).toBeLessThan(
      MAX_QUESTION_TEXT_BYTES + 64,
    );
    expect(String(shown?.options[0]?.['preview']).length).toBeLessThan(MAX_QUESTION_TEXT_BYTES + 64);
    expect(shown?.options[1]).toEqual(hugeQuestion.options[1]);
    expect(shown).toMatchObject({ header: 'Plan', multiSelect: false });
    expect(JSON.stringify(capQuestionItems([hugeQuestion])).length).toBeLessThan(64 * KIB);
  });

  it('answers a capped question with the texts shown: the CLI gets the full question text and label', async () => {
    const handler = new QuestionHandler();
    const response = handler.ask({ requestId: 'req-1', request: askRequest([hugeQuestion]) });
    const [shown] = capQuestionItems([hugeQuestion]);
    const shownLabel = shown?.options[0]?.label ?? '';
    expect(handler.submitAnswer('req-1', { [shown?.question ?? '']: shownLabel })).toBe(true);
    const answered = await response;
    expect(answered.response).toMatchObject({
      subtype: 'success',
      response: {
        behavior: 'allow',
        updatedInput: { answers: { [hugeQuestion.question]: hugeQuestion.options[0]?.label } },
      },
    });
  });

  it('still takes answers keyed by the full text, and free text as it is', async () => {
    const handler = new QuestionHandler();
    const response = handler.ask({ requestId: 'req-2', request: askRequest([hugeQuestion]) });
    expect(handler.submitAnswer('req-2', { [hugeQuestion.question]: 'Something else' })).toBe(true);
    expect((await response).response).toMatchObject({
      response: { updatedInput: { answers: { [hugeQuestion.question]: 'Something else' } } },
    });
  });

  it('relays the answers keyed by the question text shown, values capped', () => {
    const relayed = capAnswersForRelay([hugeQuestion], { [hugeQuestion.question]: 'v'.repeat(1024 * KIB) });
    const [shown] = capQuestionItems([hugeQuestion]);
    expect(Object.keys(relayed)).toEqual([shown?.question]);
    expect(JSON.stringify(relayed).length).toBeLessThan(2 * MAX_QUESTION_TEXT_BYTES + 128);
  });
});
