import { describe, expect, it } from 'vitest';
import { RelayEventSchema, type RelayEventDraft } from '@catalyst/protocol';
import {
  MESSAGE_ID,
  SESSION_ID,
  assistantLine,
  canUseToolLine,
  initLine,
  interruptMarkerLine,
  interruptedResultLine,
  lineOf,
  readToolUse,
  successResultLine,
  toolResultLine,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  MAX_RELAY_TEXT_BYTES,
  capText,
  toErrorDraft,
  toRelayDrafts,
  toStderrDraft,
} from './relay-mapping.ts';

const ctx = { ideaId: 'idea-0123456789abcdef', runId: 'run-1' };
const base = { ideaId: ctx.ideaId, runId: ctx.runId };

/** Maps a raw line, and checks every draft is a valid RelayEvent once the history gives it a seq and a time. */
function map(raw: Record<string, unknown>): RelayEventDraft[] {
  const drafts = toRelayDrafts(lineOf(raw), ctx);
  for (const draft of drafts) {
    expect(
      RelayEventSchema.safeParse({ ...draft, seq: 1, ts: '2026-01-01T00:00:00.000Z' }).error,
    ).toBeUndefined();
  }
  return drafts;
}

function eventOf(draft: RelayEventDraft | undefined) {
  if (draft?.type !== 'claude:event')
    throw new Error(`expected a claude:event, got ${draft?.type ?? 'nothing'}`);
  return draft.message;
}

describe('toRelayDrafts', () => {
  it('maps system/init to claude:system', () => {
    expect(map(initLine())).toEqual([
      {
        ...base,
        type: 'claude:system',
        sessionId: SESSION_ID,
        model: 'claude-opus-4-8[1m]',
        cwd: '/home/dev/work',
        tools: ['Task', 'AskUserQuestion', 'Bash', 'Edit', 'Read', 'Write'],
        slashCommands: ['compact', 'review'],
      },
    ]);
  });

  it('reads a missing or malformed slash_commands as none', () => {
    const { slash_commands: _dropped, ...withoutSlash } = initLine();
    expect(map(withoutSlash)[0]).toMatchObject({ slashCommands: [] });
    expect(map({ ...initLine(), slash_commands: 'compact' })[0]).toMatchObject({ slashCommands: [] });
  });

  it('maps text, thinking and tool_use blocks, keeping the message id and the parent tool use', () => {
    expect(map(assistantLine({ type: 'text', text: "I'll read the file." }, 'toolu_parent'))).toEqual([
      {
        ...base,
        type: 'claude:text',
        text: "I'll read the file.",
        messageId: MESSAGE_ID,
        parentToolUseId: 'toolu_parent',
      },
    ]);
    const thinking = { type: 'thinking', thinking: 'Let me think.', signature: 'mock-signature' };
    expect(map(assistantLine(thinking))).toEqual([
      { ...base, type: 'claude:thinking', thinking: 'Let me think.', messageId: MESSAGE_ID },
    ]);
    expect(map(assistantLine(readToolUse))).toEqual([
      {
        ...base,
        type: 'claude:tool_use',
        toolUseId: 'toolu_mockmwra86y91dc23b4',
        name: 'Read',
        input: { file_path: '/home/dev/work/sample.txt' },
        parentToolUseId: null,
      },
    ]);
  });

  it.each([
    ['redacted_thinking', { type: 'redacted_thinking', data: 'opaque' }],
    ['an unknown block', { type: 'server_tool_use', id: 'x' }],
  ])('relays a line holding %s whole as claude:event', (_name, block) => {
    const drafts = map(assistantLine(block));
    expect(drafts).toHaveLength(1);
    expect(eventOf(drafts[0])).toMatchObject({ type: 'assistant', message: { id: MESSAGE_ID } });
  });

  it('maps each block of a line with several, and adds the event for the one it cannot show', () => {
    const line = assistantLine({ type: 'text', text: 'a' });
    line.message.content.push({ type: 'redacted_thinking', data: 'opaque' });
    expect(map(line).map((draft) => draft.type)).toEqual(['claude:text', 'claude:event']);
  });

  it('maps a string tool_result, and is_error only when it is true (§12)', () => {
    const read = toolResultLine({ content: '1\tline one\n2\tline two' }, { type: 'text', file: {} });
    expect(map(read)).toEqual([
      {
        ...base,
        type: 'claude:tool_result',
        toolUseId: 'toolu_1',
        content: '1\tline one\n2\tline two',
        isError: false,
      },
    ]);
    expect(map(toolResultLine({ content: 'hello', is_error: false }))[0]).toMatchObject({ isError: false });
    expect(map(toolResultLine({ content: 'Exit code 3', is_error: true }))[0]).toMatchObject({
      isError: true,
    });
  });

  it('joins an array tool_result: text blocks by newline, other blocks summarised', () => {
    const content = [
      { type: 'text', text: 'subagent final report: all good' },
      { type: 'image', source: { type: 'base64', data: 'AAAA' } },
      { type: 'text', text: 'agentId: a14ee800216927451' },
    ];
    expect(map(toolResultLine({ content }))[0]).toMatchObject({
      type: 'claude:tool_result',
      content: 'subagent final report: all good\n[image]\nagentId: a14ee800216927451',
    });
  });

  it('never relays tool_use_result: a 10 MB originalFile stays on the server (§1)', () => {
    const originalFile = 'x'.repeat(10 * 1024 * 1024);
    const drafts = map(
      toolResultLine({ content: 'The file was updated.' }, { filePath: '/f', originalFile }),
    );
    expect(JSON.stringify(drafts).length).toBeLessThan(1_000);
  });

  it('relays user text lines (interrupt markers) as claude:event, without tool_use_result', () => {
    expect(eventOf(map(interruptMarkerLine())[0])).toMatchObject({
      type: 'user',
      message: { content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    });
    const replay = {
      ...interruptMarkerLine(),
      message: { role: 'user', content: 'Compacted' },
      tool_use_result: 'x',
    };
    const event = eventOf(map(replay)[0]);
    expect(event).toMatchObject({ type: 'user', message: { content: 'Compacted' } });
    expect(event).not.toHaveProperty('tool_use_result');
  });

  it('maps nothing for a result: the run emits claude:result itself', () => {
    expect(map(successResultLine())).toEqual([]);
    expect(map(interruptedResultLine())).toEqual([]);
  });

  it.each([
    ['message_start', { type: 'message_start', message: { id: MESSAGE_ID, content: [] } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text' } }],
    ['a text delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }],
    [
      'an input_json_delta',
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"f' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: {} }],
    ['message_stop', { type: 'message_stop' }],
  ])('stores nothing for a stream_event (%s): its text goes out live, live-text.ts', (_name, event) => {
    expect(map({ type: 'stream_event', event, parent_tool_use_id: null, session_id: SESSION_ID })).toEqual(
      [],
    );
  });

  it('stores nothing for the status "requesting" printed before each API call with partial messages', () => {
    expect(map({ type: 'system', subtype: 'status', status: 'requesting', session_id: SESSION_ID })).toEqual(
      [],
    );
  });

  it.each([
    ['a result of an unknown subtype', { ...successResultLine(), subtype: 'error_new_kind' }],
    ['a line of an unknown type', { type: 'rate_limit_event', rate_limit_info: {} }],
    [
      'api_retry',
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: 1,
        max_retries: 1,
        retry_delay_ms: 537,
        error_status: 529,
        error: 'overloaded',
      },
    ],
    [
      'task_started',
      {
        type: 'system',
        subtype: 'task_started',
        task_id: 't',
        tool_use_id: 'u',
        description: 'd',
        task_type: 'local_bash',
      },
    ],
    ['a status other than requesting', { type: 'system', subtype: 'status', status: 'compacting' }],
    ['a can_use_tool request', canUseToolLine('Write', writeInput)],
    [
      'a control_response',
      { type: 'control_response', response: { subtype: 'success', request_id: 'int-1' } },
    ],
    ['a control_cancel_request', { type: 'control_cancel_request', request_id: 'd6a1bae4' }],
  ])('relays %s as claude:event with the message', (_name, raw) => {
    const drafts = map(raw);
    expect(drafts).toHaveLength(1);
    expect(eventOf(drafts[0])).toEqual(lineOf(raw));
  });

  it('caps a 2 MB Write input, in claude:tool_use and in the can_use_tool event, with a marker', () => {
    const content = 'é'.repeat(1024 * 1024);
    const toolUse = map(
      assistantLine({ type: 'tool_use', id: 't', name: 'Write', input: { file_path: '/f', content } }),
    );
    expect(toolUse[0]).toMatchObject({ input: { file_path: '/f', content: capText(content) } });
    const event = eventOf(map(canUseToolLine('Write', { file_path: '/f', content }))[0]);
    expect(event).toMatchObject({ request: { input: { content: capText(content) } } });
    expect(JSON.stringify(event).length).toBeLessThan(MAX_RELAY_TEXT_BYTES);
  });
});

describe('capText', () => {
  it('returns short and exactly-fitting text as is', () => {
    expect(capText('hello', 5)).toBe('hello');
    expect(capText('ééé', 6)).toBe('ééé');
  });

  it('cuts at the byte limit and says how many UTF-8 bytes were omitted', () => {
    expect(capText('abcdefghij', 4)).toBe('abcd\n[… 6 bytes omitted]');
    // 'é' is 2 bytes: 3 of them fit in 7 bytes, 2 are cut (4 bytes).
    expect(capText('ééééé', 7)).toBe('ééé\n[… 4 bytes omitted]');
  });

  it('never splits a surrogate pair', () => {
    expect(capText('a😀b', 4)).toBe('a\n[… 5 bytes omitted]');
    expect(capText('a😀b', 5)).toBe('a😀\n[… 1 bytes omitted]');
  });

  it('caps at MAX_RELAY_TEXT_BYTES by default', () => {
    const capped = capText('x'.repeat(MAX_RELAY_TEXT_BYTES + 10));
    expect(capped).toBe(`${'x'.repeat(MAX_RELAY_TEXT_BYTES)}\n[… 10 bytes omitted]`);
    expect(map(assistantLine({ type: 'text', text: 'y'.repeat(3 * MAX_RELAY_TEXT_BYTES) }))[0]).toMatchObject(
      {
        text: `${'y'.repeat(MAX_RELAY_TEXT_BYTES)}\n[… ${2 * MAX_RELAY_TEXT_BYTES} bytes omitted]`,
      },
    );
  });
});

describe('toErrorDraft and toStderrDraft', () => {
  it('turns a line that is not JSON into claude:error with its sample', () => {
    const event = {
      kind: 'unparsable_line',
      sample: 'Warning: x',
      byteLength: 10,
      error: 'Unexpected token',
    } as const;
    expect(toErrorDraft(event, ctx)).toEqual({
      ...base,
      type: 'claude:error',
      source: 'unparsable_line',
      text: 'Claude printed a line that is not JSON (10 bytes; Unexpected token). It began: Warning: x',
    });
  });

  it('turns a line over the ceiling into claude:error with both sizes', () => {
    const draft = toErrorDraft(
      { kind: 'line_too_long', byteLength: 70_000_000, limitBytes: 67_108_864 },
      ctx,
    );
    expect(draft).toMatchObject({ source: 'line_too_long' });
    expect(draft.text).toContain('70000000 bytes');
    expect(draft.text).toContain('67108864 bytes');
  });

  it('relays stderr text as claude:error', () => {
    expect(toStderrDraft('No conversation found with session ID: x\n', ctx)).toEqual({
      ...base,
      type: 'claude:error',
      source: 'stderr',
      text: 'No conversation found with session ID: x\n',
    });
  });
});
