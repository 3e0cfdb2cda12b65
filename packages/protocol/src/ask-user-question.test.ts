import { describe, it, expect } from 'vitest';
import { AskUserQuestionAnswersSchema, AskUserQuestionInputSchema } from './ask-user-question.ts';
import { isCanUseToolRequest } from './cli-control.ts';
import { parseCliOutput } from './cli-output.ts';

// claude-cli-protocol.md §8.3: the question arrives as a can_use_tool request.
const REQUEST = `{"type":"control_request","request_id":"q-1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","display_name":"AskUserQuestion","input":{"questions":[{"question":"Which color do you prefer?","header":"Color","options":[{"label":"Red","description":"Warm color"},{"label":"Blue","description":"Cool color","preview":"#0000ff"}],"multiSelect":false}]},"tool_use_id":"toolu_mockmwracj904ifda170"}}`;

function questionInput(): unknown {
  const message = parseCliOutput(JSON.parse(REQUEST));
  if (message.type !== 'control_request' || !isCanUseToolRequest(message.request))
    throw new Error(message.type);
  return message.request.input;
}

describe('AskUserQuestionInputSchema', () => {
  it('types the questions of a can_use_tool input', () => {
    const input = AskUserQuestionInputSchema.parse(questionInput());
    expect(input.questions).toHaveLength(1);
    const question = input.questions[0];
    expect(question?.question).toBe('Which color do you prefer?');
    expect(question?.multiSelect).toBe(false);
    expect(question?.options.map((option) => option.label)).toEqual(['Red', 'Blue']);
    expect(question?.options[0]).not.toHaveProperty('preview');
    expect(question?.options[1]?.preview).toBe('#0000ff');
  });

  it('keeps fields the model adds', () => {
    const input = AskUserQuestionInputSchema.parse({
      questions: [{ question: 'Q?', header: 'H', options: [], multiSelect: true, hint: 'x' }],
      metadata: { source: 'model' },
    });
    expect(input.metadata).toEqual({ source: 'model' });
    expect(input.questions[0]?.hint).toBe('x');
  });

  it('rejects a question without options or header', () => {
    expect(
      AskUserQuestionInputSchema.safeParse({ questions: [{ question: 'Q?', multiSelect: false }] }).success,
    ).toBe(false);
  });
});

describe('AskUserQuestionAnswersSchema', () => {
  it('maps question text to the chosen label(s)', () => {
    const answers = { 'Which color do you prefer?': 'Blue', 'Which sizes?': 'S, M' };
    expect(AskUserQuestionAnswersSchema.parse(answers)).toEqual(answers);
    expect(AskUserQuestionAnswersSchema.safeParse({ 'Which sizes?': ['S', 'M'] }).success).toBe(false);
  });
});
