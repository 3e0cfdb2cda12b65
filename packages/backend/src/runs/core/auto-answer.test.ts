import { describe, expect, it } from 'vitest';
import {
  AUTO_ANSWER_CONVERSATION_CHARS,
  AUTO_ANSWER_ENTRY_CHARS,
  buildAutoAnswerPrompt,
  parseAutoAnswer,
} from './auto-answer.ts';

const color = {
  question: 'Which color?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'Warm' },
    { label: 'Blue', description: 'Cool' },
  ],
  multiSelect: false,
};
const toppings = { ...color, question: 'Which toppings?', header: 'Toppings', multiSelect: true };

describe('parseAutoAnswer', () => {
  it('takes an offered label, several for a multi-select, and free text as "Other"', () => {
    const reply = JSON.stringify({
      answers: { 'Which color?': { other: 'Moss green' }, 'Which toppings?': ['Red', 'Blue'] },
    });
    expect(parseAutoAnswer(reply, [color, toppings])).toEqual({
      ok: true,
      answers: { 'Which color?': 'Moss green', 'Which toppings?': 'Red, Blue' },
    });
    expect(parseAutoAnswer('```json\n{"answers":{"Which color?":"Blue"}}\n```', [color])).toEqual({
      ok: true,
      answers: { 'Which color?': 'Blue' },
    });
  });

  it.each([
    ['prose', 'Blue, I think.'],
    ['a label that was not offered', '{"answers":{"Which color?":"Green"}}'],
    ['a missing question', '{"answers":{}}'],
    ['two labels for a single choice', '{"answers":{"Which color?":["Red","Blue"]}}'],
    ['a different shape', '{"Which color?":"Blue"}'],
  ])('refuses %s, saying why', (_what, reply) => {
    const parsed = parseAutoAnswer(reply, [color]);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).not.toBe('');
  });
});

describe('buildAutoAnswerPrompt', () => {
  it('holds the idea, the conversation, the questions with their options, and a retry`s problem', () => {
    const prompt = buildAutoAnswerPrompt({
      questions: [color],
      idea: { title: 'Paint app', description: 'Calm colors only' },
      conversation: [{ role: 'person', text: 'Make it soothing.' }],
      retryOf: { reply: 'Blue!', problem: 'it is not JSON' },
    });
    for (const part of [
      'Paint app',
      'Calm colors only',
      'Person: Make it soothing.',
      'Which color?',
      '- Blue: Cool',
      'Blue!',
      'it is not JSON',
    ]) {
      expect(prompt).toContain(part);
    }
  });

  it('shows the activity between messages, the answers that did not settle the question, and stays bounded', () => {
    const huge = 'y'.repeat(100_000);
    const prompt = buildAutoAnswerPrompt({
      questions: [color],
      idea: { title: 'Paint app', description: '' },
      conversation: [
        ...Array.from({ length: 40 }, () => ({ role: 'claude' as const, text: huge })),
        { role: 'activity', text: 'Bash failed: red is not allowed here' },
      ],
      askedAgainAfter: ['{"Which color?":"Red"}'],
    });
    expect(prompt).toContain('  · Bash failed: red is not allowed here');
    expect(prompt).toContain('answered automatically with {"Which color?":"Red"}, yet it asks again');
    expect(prompt).toMatch(/\d+ earlier entries left out/);
    expect(prompt.length).toBeLessThan(AUTO_ANSWER_CONVERSATION_CHARS + AUTO_ANSWER_ENTRY_CHARS);
  });
});
