import { parseCliOutput, type CliMessage } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { describeTaskMessage, isInterruptNote, isRefusalNote, stoppedWords } from './stopped-words.ts';

// Issue 31: the CLI's notes about a stopped run, in the person's words.

function userText(text: string): CliMessage {
  return parseCliOutput({
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
    session_id: 's',
  });
}

describe('stopped words', () => {
  it('knows the CLI’s interrupt notes from a person’s message', () => {
    expect(isInterruptNote(userText('[Request interrupted by user]'))).toBe(true);
    expect(isInterruptNote(userText('[Request interrupted by user for tool use]'))).toBe(true);
    expect(isInterruptNote(userText('Please stop [Request interrupted by user]'))).toBe(false);
  });

  it('knows the CLI’s note to Claude in a tool result', () => {
    expect(
      isRefusalNote("The user doesn't want to proceed with this tool use. The tool use was rejected."),
    ).toBe(true);
    expect(isRefusalNote('The person denied this tool call.')).toBe(false);
  });

  it('says what happened to the run', () => {
    expect(stoppedWords('cancelled')).toBe('Stopped: cancelled by you.');
    expect(stoppedWords('timed_out')).toBe('Stopped: the run timed out.');
    expect(stoppedWords(undefined)).toBe('Stopped before it finished.');
  });

  it('puts a task’s raw line in words', () => {
    const started = parseCliOutput({
      type: 'system',
      subtype: 'task_started',
      task_id: 't1',
      tool_use_id: 'tu1',
      description: 'a long task',
      task_type: 'local_bash',
      session_id: 's',
      uuid: 'u',
    });
    expect(describeTaskMessage(started)).toBe('Claude started a task: a long task');
    expect(describeTaskMessage(userText('hi'))).toBeUndefined();
  });
});
