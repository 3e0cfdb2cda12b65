import { parseCliOutput, type CliMessage } from '@catalyst/protocol';

/**
 * stdout lines of the real CLI, copied from claude-cli-protocol.md (section and experiment tag on each), for the
 * unit tests of the core. Each builder returns the raw JSON value; `lineOf` runs it through the real parser.
 */

export const SESSION_ID = 'aeb165df-4889-431c-92f5-d781e8dd8402';
export const MESSAGE_ID = 'msg_mockmwra86y9311175d';

export function lineOf(raw: Record<string, unknown>): CliMessage {
  return parseCliOutput(raw);
}

/** §3.1 [14a]. */
export function initLine(sessionId = SESSION_ID): Record<string, unknown> {
  return {
    type: 'system',
    subtype: 'init',
    cwd: '/home/dev/work',
    session_id: sessionId,
    tools: ['Task', 'AskUserQuestion', 'Bash', 'Edit', 'Read', 'Write'],
    mcp_servers: [],
    model: 'claude-opus-4-8[1m]',
    permissionMode: 'default',
    slash_commands: ['compact', 'review'],
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: '2.1.197',
    uuid: 'd0778104-aae2-49f7-bde0-b8ef83cc2316',
  };
}

/** §3.2 [02-read]: one content block per line; several lines share `message.id`. */
export function assistantLine(block: Record<string, unknown>, parentToolUseId: string | null = null) {
  return {
    type: 'assistant',
    message: {
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-8',
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
      context_management: null,
    },
    parent_tool_use_id: parentToolUseId,
    session_id: SESSION_ID,
    uuid: 'c7f6190e-6758-4dfc-b04a-134546388620',
    request_id: 'req_mockmwra86y920540c0',
  };
}

export const readToolUse = {
  type: 'tool_use',
  id: 'toolu_mockmwra86y91dc23b4',
  name: 'Read',
  input: { file_path: '/home/dev/work/sample.txt' },
};

/** §3.3: one tool_result per line, with the structured `tool_use_result` beside it. */
export function toolResultLine(block: Record<string, unknown>, toolUseResult: unknown = 'Error: x') {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', ...block }] },
    parent_tool_use_id: null,
    session_id: SESSION_ID,
    uuid: 'd5b4d611-0000-0000-0000-000000000000',
    timestamp: '2026-11-22T03:33:30.058Z',
    tool_use_result: toolUseResult,
  };
}

/** §3.7: the interrupt marker. */
export function interruptMarkerLine() {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    parent_tool_use_id: null,
    session_id: SESSION_ID,
    uuid: 'e1',
    timestamp: '2026-11-22T03:33:31.000Z',
  };
}

/** §8.2 [14a]. */
export function canUseToolLine(toolName: string, input: Record<string, unknown>, requestId = 'req-perm-1') {
  return {
    type: 'control_request',
    request_id: requestId,
    request: {
      subtype: 'can_use_tool',
      tool_name: toolName,
      display_name: toolName,
      input,
      permission_suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
      tool_use_id: 'toolu_mockmwrac9ya4d141951',
    },
  };
}

export const writeInput = { file_path: '/home/dev/work/should-not-exist.txt', content: 'nope\n' };
export const bashWriteInput = {
  command: 'echo should-not-run > /home/dev/work/bash-ran.txt',
  description: 'Write via bash',
};
/** §8.3 [15a]. */
export const askInput = {
  questions: [
    {
      question: 'Which color do you prefer?',
      header: 'Color',
      options: [
        { label: 'Red', description: 'Warm color' },
        { label: 'Blue', description: 'Cool color' },
      ],
      multiSelect: false,
    },
  ],
};

const resultBase = {
  type: 'result',
  duration_ms: 176,
  duration_api_ms: 46,
  num_turns: 2,
  stop_reason: 'end_turn',
  session_id: SESSION_ID,
  total_cost_usd: 0.00235,
  usage: { input_tokens: 200, output_tokens: 54 },
  modelUsage: {},
  permission_denials: [],
  uuid: '404bf9bb-939b-49f4-840f-8ac2be37426d',
};

/** §3.4 [02-read]. */
export function successResultLine(text = 'The file has three lines.') {
  return {
    ...resultBase,
    subtype: 'success',
    is_error: false,
    api_error_status: null,
    result: text,
    terminal_reason: 'completed',
  };
}

/** §3.6 [05-err529]: an API error is `success` + `is_error: true`. */
export function apiErrorResultLine() {
  return {
    ...resultBase,
    subtype: 'success',
    is_error: true,
    api_error_status: 529,
    result:
      'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.',
    terminal_reason: 'completed',
  };
}

/** §3.5 [16a]: after an interrupt. */
export function interruptedResultLine() {
  return {
    ...resultBase,
    subtype: 'error_during_execution',
    is_error: true,
    stop_reason: null,
    terminal_reason: 'aborted_streaming',
    errors: ['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'],
  };
}

/** §6 [11-resume-unknown]: the one line of a `--resume` whose session the CLI no longer has (no init before it). */
export function lostSessionResultLine(sessionId = SESSION_ID) {
  return {
    ...resultBase,
    subtype: 'error_during_execution',
    is_error: true,
    num_turns: 0,
    stop_reason: null,
    session_id: sessionId,
    errors: [`No conversation found with session ID: ${sessionId}`],
  };
}

/** §3.9 [06-partial]: one raw SSE event, as `--include-partial-messages` prints it. */
export function streamEventLine(event: Record<string, unknown>, parentToolUseId: string | null = null) {
  return {
    type: 'stream_event',
    event,
    session_id: SESSION_ID,
    parent_tool_use_id: parentToolUseId,
    uuid: '6d3b27d8-1111-4aaa-8bbb-0123456789ab',
  };
}

export function messageStartLine(messageId = MESSAGE_ID) {
  return streamEventLine({
    type: 'message_start',
    message: { id: messageId, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content: [] },
  });
}

export function textDeltaLine(text: string, index = 0, parentToolUseId: string | null = null) {
  return streamEventLine(
    { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
    parentToolUseId,
  );
}

/** §3.6 [05-err529]. */
export function apiRetryLine() {
  return {
    type: 'system',
    subtype: 'api_retry',
    attempt: 1,
    max_retries: 10,
    retry_delay_ms: 537.36,
    error_status: null,
    error: 'unknown',
    session_id: SESSION_ID,
    uuid: 'a3408077-2222-4ccc-8ddd-0123456789ab',
  };
}
