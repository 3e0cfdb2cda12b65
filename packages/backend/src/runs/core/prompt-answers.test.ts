import type { CanUseToolRequest } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { askInput, writeInput } from '../../../test/support/cli-line-fixtures.ts';
import {
  DISMISSED_MESSAGE,
  NO_ANSWER_IN_TIME,
  PERMISSION_DENIED_MESSAGE,
  createDismissResponse,
  createNoAnswerInTimeResponse,
  createPermissionResponse,
} from './prompt-answers.ts';

const suggestions = [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
const writeRequest: CanUseToolRequest = {
  subtype: 'can_use_tool',
  tool_name: 'Write',
  input: writeInput,
  permission_suggestions: suggestions,
};

function payloadOf(response: ReturnType<typeof createDismissResponse>): unknown {
  return response.response.subtype === 'success' ? response.response.response : undefined;
}

describe('prompt answers (protocol §8.2, §8.3)', () => {
  it('dismisses with a deny saying the person declined', () => {
    expect(payloadOf(createDismissResponse('q'))).toEqual({ behavior: 'deny', message: DISMISSED_MESSAGE });
  });

  it('answers an unanswered question with an allow telling the model to go on, not a refusal', () => {
    const response = createNoAnswerInTimeResponse('q', askInput, askInput.questions);
    const question = askInput.questions[0]?.question ?? '';
    expect(payloadOf(response)).toEqual({
      behavior: 'allow',
      updatedInput: { ...askInput, answers: { [question]: NO_ANSWER_IN_TIME } },
    });
  });

  it('remembers a rule for this session only, whatever settings file the CLI suggested', () => {
    const rule = {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'npm install *' }],
      behavior: 'allow',
    };
    const bashRequest: CanUseToolRequest = {
      subtype: 'can_use_tool',
      tool_name: 'Bash',
      input: { command: 'npm install left-pad' },
      permission_suggestions: [
        { ...rule, destination: 'localSettings' },
        { ...rule, destination: 'userSettings' },
      ],
    };
    expect(
      payloadOf(createPermissionResponse('p', bashRequest, { decision: 'allow', remember: true })),
    ).toEqual({
      behavior: 'allow',
      updatedInput: bashRequest.input,
      updatedPermissions: [
        { ...rule, destination: 'session' },
        { ...rule, destination: 'session' },
      ],
    });
  });

  it('allows with the input echoed, and with the suggestions only when remembered', () => {
    expect(payloadOf(createPermissionResponse('p', writeRequest, { decision: 'allow' }))).toEqual({
      behavior: 'allow',
      updatedInput: writeInput,
    });
    expect(
      payloadOf(createPermissionResponse('p', writeRequest, { decision: 'allow', remember: true })),
    ).toEqual({
      behavior: 'allow',
      updatedInput: writeInput,
      updatedPermissions: suggestions,
    });
  });

  it('denies with the person`s message, or a default one', () => {
    expect(
      payloadOf(createPermissionResponse('p', writeRequest, { decision: 'deny', message: 'No.' })),
    ).toEqual({
      behavior: 'deny',
      message: 'No.',
    });
    expect(payloadOf(createPermissionResponse('p', writeRequest, { decision: 'deny' }))).toEqual({
      behavior: 'deny',
      message: PERMISSION_DENIED_MESSAGE,
    });
  });
});
