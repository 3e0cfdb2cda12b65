import { describe, expect, it } from 'vitest';
import type { CanUseToolRequest } from '@catalyst/protocol';
import { CatalystError } from '../../core/catalyst-error.ts';
import { QuestionHandler, type PendingQuestion } from './question-handler.ts';

const colorQuestion = {
  question: 'Which color do you prefer?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'Warm color' },
    { label: 'Blue', description: 'Cool color' },
  ],
  multiSelect: false,
};
const toppingsQuestion = {
  question: 'Which toppings?',
  header: 'Toppings',
  options: [
    { label: 'Cheese', description: '' },
    { label: 'Olives', description: '' },
  ],
  multiSelect: true,
};

function askRequest(questions: unknown[], toolName = 'AskUserQuestion'): CanUseToolRequest {
  return { subtype: 'can_use_tool', tool_name: toolName, input: { questions }, tool_use_id: 'toolu_q' };
}

describe('QuestionHandler', () => {
  it('resolves with allow + updatedInput holding the answers keyed by question text', async () => {
    const handler = new QuestionHandler({ now: () => 42 });
    const pending: PendingQuestion[] = [];
    const answered: unknown[] = [];
    handler.on('question:pending', (question) => pending.push(question));
    handler.on('question:answered', (event) => answered.push(event));

    const response = handler.ask(
      { requestId: 'req-1', request: askRequest([colorQuestion, toppingsQuestion]) },
      { runId: 'run-1' },
    );
    expect(pending).toEqual([
      {
        id: 'req-1',
        toolUseId: 'toolu_q',
        questions: [colorQuestion, toppingsQuestion],
        createdAt: 42,
        context: { runId: 'run-1' },
      },
    ]);
    expect(handler.getPendingById('req-1')?.id).toBe('req-1');

    const answers = { 'Which color do you prefer?': 'Blue', 'Which toppings?': ['Cheese', 'Olives'] };
    expect(handler.submitAnswer('req-1', answers)).toBe(true);
    const normalized = { 'Which color do you prefer?': 'Blue', 'Which toppings?': 'Cheese, Olives' };
    expect(await response).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'req-1',
        response: {
          behavior: 'allow',
          updatedInput: { questions: [colorQuestion, toppingsQuestion], answers: normalized },
        },
      },
    });
    expect(answered).toEqual([{ id: 'req-1', answers: normalized }]);
    expect(handler.getPending()).toEqual([]);
  });

  it('returns false for an unknown id, and for a second answer', async () => {
    const handler = new QuestionHandler();
    expect(handler.submitAnswer('nope', {})).toBe(false);
    const response = handler.ask({ requestId: 'req-1', request: askRequest([colorQuestion]) });
    expect(handler.submitAnswer('req-1', { 'Which color do you prefer?': 'Red' })).toBe(true);
    expect(handler.submitAnswer('req-1', { 'Which color do you prefer?': 'Blue' })).toBe(false);
    await response;
  });

  it('keeps several questions pending at once, each answered on its own', async () => {
    const handler = new QuestionHandler();
    const first = handler.ask({ requestId: 'a', request: askRequest([colorQuestion]) });
    const second = handler.ask({ requestId: 'b', request: askRequest([toppingsQuestion]) });
    expect(handler.getPending().map((q) => q.id)).toEqual(['a', 'b']);
    handler.submitAnswer('b', { 'Which toppings?': ['Olives'] });
    expect(handler.getPending().map((q) => q.id)).toEqual(['a']);
    handler.submitAnswer('a', { 'Which color do you prefer?': 'Red' });
    expect((await second).response.request_id).toBe('b');
    expect((await first).response.request_id).toBe('a');
  });

  it('refuses an answer to a question that was not asked, and keeps the question pending', () => {
    const handler = new QuestionHandler();
    const pending = handler.ask({ requestId: 'a', request: askRequest([colorQuestion]) });
    expect(() => handler.submitAnswer('a', { 'What size?': 'Large' })).toThrow(CatalystError);
    expect(handler.getPendingById('a')).toBeDefined();
    handler.rejectAll('cleanup');
    return expect(pending).rejects.toMatchObject({ code: 'QUESTION_CANCELLED' });
  });

  it('rejectAll settles every pending question with QUESTION_CANCELLED', async () => {
    const handler = new QuestionHandler();
    const first = handler.ask({ requestId: 'a', request: askRequest([colorQuestion]) });
    const second = handler.ask({ requestId: 'b', request: askRequest([toppingsQuestion]) });
    expect(handler.rejectAll('run cancelled')).toBe(2);
    await expect(first).rejects.toMatchObject({ code: 'QUESTION_CANCELLED', message: 'run cancelled' });
    await expect(second).rejects.toMatchObject({ code: 'QUESTION_CANCELLED' });
    expect(handler.getPending()).toEqual([]);
    expect(handler.submitAnswer('a', {})).toBe(false);
  });

  it('rejects a request that is not a valid AskUserQuestion', async () => {
    const handler = new QuestionHandler();
    await expect(handler.ask({ requestId: 'w', request: askRequest([], 'Write') })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      handler.ask({ requestId: 'x', request: askRequest([{ question: 1 }]) }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(handler.getPending()).toEqual([]);
  });

  it('unsubscribes a listener', async () => {
    const handler = new QuestionHandler();
    const seen: string[] = [];
    const off = handler.on('question:pending', (question) => seen.push(question.id));
    const first = handler.ask({ requestId: 'a', request: askRequest([colorQuestion]) });
    off();
    const second = handler.ask({ requestId: 'b', request: askRequest([colorQuestion]) });
    expect(seen).toEqual(['a']);
    handler.rejectAll('cleanup');
    await Promise.allSettled([first, second]);
  });
});
