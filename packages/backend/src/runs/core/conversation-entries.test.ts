import { describe, expect, it } from 'vitest';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { colorQuestion as color } from '@catalyst/testkit';
import {
  ACTIVITY_RESULT_CHARS,
  boundConversation,
  conversationOf,
  isConversationEvent,
  type ConversationEntry,
} from './conversation-entries.ts';

// What the answerer's second look at a question sees between the messages (issue 12): the tool calls and their
// results, the questions and how they were answered, each one bounded line; a subagent's inner steps are not part
// of the conversation.

let seq = 0;
function eventOf(fields: Record<string, unknown>): RelayEvent {
  seq += 1;
  return RelayEventSchema.parse({
    ideaId: 'idea-0123456789abcdef',
    runId: 'r',
    seq,
    ts: new Date().toISOString(),
    ...fields,
  });
}

const events = [
  eventOf({ type: 'run:started', mode: 'build', message: 'Paint the page.' }),
  eventOf({ type: 'claude:text', text: 'Looking.', messageId: 'm1', parentToolUseId: null }),
  eventOf({
    type: 'claude:tool_use',
    toolUseId: 't0',
    name: 'AskUserQuestion',
    input: { questions: [color] },
    parentToolUseId: null,
  }),
  eventOf({
    type: 'claude:question',
    questionId: 'q1',
    questions: [color],
    askedAt: new Date().toISOString(),
  }),
  eventOf({
    type: 'claude:question_answered',
    questionId: 'q1',
    answers: { [color.question]: 'Red' },
    source: 'auto',
    by: 'small',
  }),
  eventOf({ type: 'claude:tool_result', toolUseId: 't0', content: 'User answered', isError: false }),
  eventOf({
    type: 'claude:tool_use',
    toolUseId: 't1',
    name: 'Bash',
    input: { command: 'paint red' },
    parentToolUseId: null,
  }),
  eventOf({
    type: 'claude:tool_use',
    toolUseId: 't2',
    name: 'Read',
    input: { file_path: 'x' },
    parentToolUseId: 'task',
  }),
  eventOf({ type: 'claude:text', text: 'Inner.', messageId: 'm2', parentToolUseId: 'task' }),
  eventOf({ type: 'claude:tool_result', toolUseId: 't2', content: 'inner result', isError: false }),
  eventOf({
    type: 'claude:tool_result',
    toolUseId: 't1',
    content: `red is not allowed here ${'!'.repeat(600)}`,
    isError: true,
  }),
  eventOf({ type: 'claude:question_closed', questionId: 'q2', reason: 'timed_out' }),
];

describe('conversationOf', () => {
  it('gives the messages and, between them, one bounded line per tool call, result, question and answer', () => {
    const chosen = events.filter((event) => isConversationEvent(event, true));
    const entries = conversationOf(chosen);
    expect(entries.slice(0, 4)).toEqual([
      { role: 'person', text: 'Paint the page.' },
      { role: 'claude', text: 'Looking.' },
      { role: 'activity', text: 'Claude asked: "Which color do you prefer?" (offered: Red, Blue)' },
      { role: 'activity', text: 'Answered automatically (small): "Which color do you prefer?" → "Red"' },
    ]);
    expect(entries[4]).toEqual({ role: 'activity', text: 'Claude used Bash: {"command":"paint red"}' });
    expect(entries[5]?.text).toMatch(/^Bash failed: red is not allowed here !+… \(\d+ more characters\)$/);
    expect(entries[5]?.text.length).toBeLessThan(ACTIVITY_RESULT_CHARS + 60);
    expect(entries[6]).toEqual({ role: 'activity', text: 'The question was closed unanswered (timed_out).' });
    expect(entries).toHaveLength(7);
  });

  it('without activity, only the messages', () => {
    const chosen = events.filter((event) => isConversationEvent(event, false));
    expect(conversationOf(chosen)).toEqual([
      { role: 'person', text: 'Paint the page.' },
      { role: 'claude', text: 'Looking.' },
    ]);
  });
});

describe('boundConversation', () => {
  it('keeps the newest entries that fit, each cut, and counts the ones left out', () => {
    const entries: ConversationEntry[] = Array.from({ length: 50 }, (_, index) => ({
      role: 'claude',
      text: `${String(index).padStart(2, '0')}${'x'.repeat(200)}`,
    }));
    const bounded = boundConversation(entries, { entryChars: 100, totalChars: 1_000 });
    expect(bounded.entries.length).toBeGreaterThan(0);
    expect(bounded.entries.at(-1)?.text.startsWith('49')).toBe(true);
    expect(bounded.leftOut).toBe(50 - bounded.entries.length);
    const total = bounded.entries.reduce((sum, entry) => sum + entry.text.length, 0);
    expect(total).toBeLessThanOrEqual(1_000);
    expect(bounded.entries.every((entry) => entry.text.includes('more characters'))).toBe(true);
  });
});
