import { describe, expect, it } from 'vitest';
import { AUTO_ANSWER_CONVERSATION_MESSAGES, AUTO_ANSWER_REPEAT_MESSAGES } from './core/auto-answer.ts';
import { QuestionAutoAnswerer, type AutoAnswerSetup } from './question-auto-answer.ts';

// The answerer with a fake model: a question asked again after an automatic answer is answered with more of the
// conversation; a third time fails the run, quoting the question and both earlier answers.

const color = {
  question: 'Which color?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'Warm' },
    { label: 'Blue', description: 'Cool' },
  ],
  multiSelect: false,
};
const conversation = Array.from({ length: 250 }, (_, index) => ({
  role: 'person' as const,
  text: `message ${index}`,
}));

function createAnswerer(replies: string[]) {
  const prompts: string[] = [];
  const failures: string[] = [];
  const answered: Record<string, string>[] = [];
  const asked: { maxEntries: number; withActivity: boolean }[] = [];
  const pending = new Set<string>();
  let settle: () => void = () => undefined;
  const setup: AutoAnswerSetup = {
    policy: 'auto',
    delayMs: 0,
    model: 'small',
    idea: { title: 'Idea', description: '' },
    reply: (prompt) => {
      prompts.push(prompt);
      return Promise.resolve({ text: replies.shift() ?? '', costUsd: 0.01 });
    },
    // As the history does: only the newest `maxMessages` are read.
    conversation: ({ maxEntries, withActivity }) => {
      asked.push({ maxEntries, withActivity });
      return Promise.resolve(conversation.slice(-maxEntries));
    },
    fail: (message) => failures.push(message),
    warn: () => undefined,
  };
  const answerer = new QuestionAutoAnswerer(setup, {
    isPending: (id) => pending.has(id),
    answer: (id, answers) => {
      answered.push(answers);
      pending.delete(id);
      settle();
      return true;
    },
  });
  const ask = (id: string) =>
    new Promise<void>((resolve) => {
      settle = resolve;
      pending.add(id);
      answerer.schedule(id, [color]);
    });
  return { answerer, ask, prompts, failures, answered, asked };
}

describe('QuestionAutoAnswerer', () => {
  it('answers a repeated question with more of the conversation, and fails the third time', async () => {
    const run = createAnswerer(['{"answers":{"Which color?":"Red"}}', '{"answers":{"Which color?":"Blue"}}']);
    await run.ask('q-1');
    expect(run.prompts[0]).not.toContain('message 239\n');
    expect(run.prompts[0]).toContain('message 240\n');
    expect(run.prompts[0]).toContain('message 249');
    await run.ask('q-2');
    expect(run.prompts[1]).not.toContain('message 49\n');
    expect(run.prompts[1]).toContain('message 50\n');
    expect(run.asked).toEqual([
      { maxEntries: AUTO_ANSWER_CONVERSATION_MESSAGES, withActivity: false },
      { maxEntries: AUTO_ANSWER_REPEAT_MESSAGES, withActivity: true },
    ]);
    expect(run.prompts[0]).not.toContain('asked these questions before');
    expect(run.prompts[1]).toContain(
      'Claude asked these questions before and was answered automatically with {"Which color?":"Red"}',
    );
    run.answerer.schedule('q-3', [color]);

    expect(run.answered).toEqual([{ 'Which color?': 'Red' }, { 'Which color?': 'Blue' }]);
    expect(run.failures).toHaveLength(1);
    expect(run.failures[0]).toContain('Which color?');
    expect(run.failures[0]).toContain('Red');
    expect(run.failures[0]).toContain('Blue');
    expect(run.answerer.stats()).toMatchObject({ questionsAnsweredAutomatically: 2, autoAnswerRetries: 0 });
    expect(run.answerer.stats().auxiliaryCostUsd).toBeCloseTo(0.02);
  });
});
