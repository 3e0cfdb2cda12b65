import { describe, it, expect } from 'vitest';
import { CliMessageSchema, parseCliOutput, type CliMessage } from './cli-output.ts';
import type { ToolResultBlock } from './cli-content-blocks.ts';

// Lines copied from claude-cli-protocol.md (section in each name), "…" elisions replaced by plausible values.
const IDS =
  '"session_id":"aeb165df-4889-431c-92f5-d781e8dd8402","uuid":"d5b4d611-0000-4000-8000-000000000001"';
const TAIL = `"parent_tool_use_id":null,${IDS},"timestamp":"2026-11-22T03:33:30.058Z"`;
const toolResultLine = (block: string, toolUseResult: string) =>
  `{"type":"user","message":{"role":"user","content":[${block}]},${TAIL},"tool_use_result":${toolUseResult}}`;

const userLines = {
  readOk: toolResultLine(
    String.raw`{"tool_use_id":"toolu_mockmwra86y91dc23b4","type":"tool_result","content":"1\tline one\n2\tline two\n3\tTODO: fix me\n4\t"}`,
    String.raw`{"type":"text","file":{"filePath":"/home/dev/work/sample.txt","content":"line one\nline two\nTODO: fix me\n","numLines":4,"startLine":1,"totalLines":4}}`,
  ),
  bashOk: toolResultLine(
    String.raw`{"tool_use_id":"toolu_mockmwra8dt5bfb60cd","type":"tool_result","content":"hello-from-bash\n/home/dev/work","is_error":false}`,
    String.raw`{"stdout":"hello-from-bash\n/home/dev/work","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`,
  ),
  readMissing: toolResultLine(
    '{"type":"tool_result","content":"File does not exist. Note: your current working directory is /home/dev/work.","is_error":true,"tool_use_id":"toolu_mockmwra8d9166a60b5"}',
    '"Error: File does not exist. Note: your current working directory is /home/dev/work."',
  ),
  subagent: toolResultLine(
    String.raw`{"tool_use_id":"toolu_mockmwram4bw3e6b1e1f","type":"tool_result","content":[{"type":"text","text":"subagent final report: all good"},{"type":"text","text":"agentId: a14ee800216927451\n<usage>subagent_tokens: 114</usage>"}]}`,
    '{"status":"completed","prompt":"please investigate","agentId":"a14ee800216927451","agentType":"general-purpose","content":[],"totalDurationMs":49,"totalTokens":114,"totalToolUseCount":0}',
  ),
  interrupted: `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},${TAIL}}`,
  compactSummary: `{"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."},${TAIL},"isReplay":false,"isSynthetic":true}`,
  replay: `{"type":"user","message":{"role":"user","content":"<local-command-stdout>Compacted </local-command-stdout>"},${TAIL},"isReplay":true}`,
};

const RESULT_COMMON = `"duration_ms":176,"duration_api_ms":46,"num_turns":2,"session_id":"aeb165df-4889-431c-92f5-d781e8dd8402","total_cost_usd":0.00235,"usage":{"input_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":54,"service_tier":"standard"},"modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":200,"outputTokens":54,"costUSD":0.00235}},"fast_mode_state":"off","uuid":"404bf9bb-939b-49f4-840f-8ac2be37426d"`;
const resultLines = {
  success: `{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"ttft_ms":141,"result":"The file has three lines.","stop_reason":"end_turn",${RESULT_COMMON},"permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_mockmwra8f2fl68adbd","tool_input":{"file_path":"/home/dev/work/written.txt","content":"x"}}],"terminal_reason":"completed"}`,
  apiError: `{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 Overloaded.","stop_reason":"stop_sequence",${RESULT_COMMON},"permission_denials":[],"terminal_reason":"completed"}`,
  maxTurns: `{"type":"result","subtype":"error_max_turns","is_error":true,"stop_reason":"tool_use",${RESULT_COMMON},"permission_denials":[],"terminal_reason":"max_turns","errors":["Reached maximum number of turns (1)"]}`,
  maxBudget: `{"type":"result","subtype":"error_max_budget_usd","is_error":true,"stop_reason":"tool_use",${RESULT_COMMON},"permission_denials":[],"errors":["Reached maximum budget ($0.001)"]}`,
  interrupted: `{"type":"result","subtype":"error_during_execution","is_error":true,"stop_reason":null,${RESULT_COMMON},"permission_denials":[],"terminal_reason":"aborted_streaming","errors":["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"]}`,
  unknownSession: `{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,"is_error":true,"num_turns":0,"stop_reason":null,"session_id":"00000000-1111-2222-3333-444444444444","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[],"uuid":"ebf529c7-0000-4000-8000-000000000000","errors":["No conversation found with session ID: 00000000-1111-2222-3333-444444444444"]}`,
  structuredOutput: `{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"stop_reason":"end_turn",${RESULT_COMMON},"permission_denials":[],"errors":["Failed to produce valid structured output"]}`,
};

function parseUser(line: string): Extract<CliMessage, { type: 'user' }> {
  const message = parseCliOutput(JSON.parse(line));
  if (message.type !== 'user') throw new Error(JSON.stringify(message).slice(0, 400));
  return message;
}

function parseResult(line: string): Extract<CliMessage, { type: 'result' }> {
  const message = parseCliOutput(JSON.parse(line));
  if (message.type !== 'result') throw new Error(JSON.stringify(message).slice(0, 400));
  return message;
}

function firstToolResult(line: string): ToolResultBlock {
  const content = parseUser(line).message.content;
  const block = Array.isArray(content) ? content[0] : undefined;
  if (block?.type !== 'tool_result') throw new Error(`no tool_result in ${line}`);
  return block;
}

describe('parseCliOutput: user lines (§3.3, §3.7, §3.10)', () => {
  it.each(Object.entries(userLines))('types user line %s', (_name, line) => {
    expect(parseUser(line).type).toBe('user');
  });

  it('distinguishes is_error absent (Read), false (Bash) and true (failure)', () => {
    const read = firstToolResult(userLines.readOk);
    expect('is_error' in read).toBe(false);
    expect(read.is_error).toBeUndefined();
    expect(firstToolResult(userLines.bashOk).is_error).toBe(false);
    expect(firstToolResult(userLines.readMissing).is_error).toBe(true);
  });

  it('types tool_result content as a string or as an array of blocks', () => {
    expect(firstToolResult(userLines.bashOk).content).toBe('hello-from-bash\n/home/dev/work');
    const subagent = firstToolResult(userLines.subagent).content;
    if (typeof subagent === 'string') throw new Error('expected an array');
    expect(subagent.map((block) => block.type)).toEqual(['text', 'text']);
    expect(subagent[0]).toEqual({ type: 'text', text: 'subagent final report: all good' });
  });

  it('types tool_use_result as an object on success and a string on failure', () => {
    expect(parseUser(userLines.readOk).tool_use_result).toMatchObject({ file: { numLines: 4 } });
    expect(parseUser(userLines.readMissing).tool_use_result).toBe(
      'Error: File does not exist. Note: your current working directory is /home/dev/work.',
    );
    expect(parseUser(userLines.interrupted)).not.toHaveProperty('tool_use_result');
  });

  it('accepts plain-string content and keeps the replay and synthetic flags', () => {
    const summary = parseUser(userLines.compactSummary);
    expect(typeof summary.message.content).toBe('string');
    expect(summary.isSynthetic).toBe(true);
    expect(summary.isReplay).toBe(false);
    expect(parseUser(userLines.replay).isReplay).toBe(true);
  });

  it('keeps a subagent prompt with its parent_tool_use_id and extra fields (§3.8)', () => {
    const line = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"please investigate"}]},"parent_tool_use_id":"toolu_mockmwram4bw3e6b1e1f",${IDS},"subagent_type":"general-purpose","task_description":"Investigate sample"}`;
    const message = parseUser(line);
    expect(message.parent_tool_use_id).toBe('toolu_mockmwram4bw3e6b1e1f');
    expect(message.task_description).toBe('Investigate sample');
  });
});

describe('parseCliOutput: result lines (§3.4–§3.6)', () => {
  it('types a success with its result text and keeps modelUsage', () => {
    const result = parseResult(resultLines.success);
    if (result.subtype !== 'success') throw new Error(result.subtype);
    expect(result.is_error).toBe(false);
    expect(result.result).toBe('The file has three lines.');
    expect(result.permission_denials[0]?.tool_name).toBe('Write');
    expect(result.modelUsage).toEqual({
      'claude-opus-4-8[1m]': { inputTokens: 200, outputTokens: 54, costUSD: 0.00235 },
    });
    expect(result.ttft_ms).toBe(141);
  });

  it('types an API error as success + is_error with api_error_status (§3.6)', () => {
    const result = parseResult(resultLines.apiError);
    if (result.subtype !== 'success') throw new Error(result.subtype);
    expect(result.is_error).toBe(true);
    expect(result.api_error_status).toBe(529);
  });

  it.each([
    ['maxTurns', 'error_max_turns', 'Reached maximum number of turns (1)'],
    ['maxBudget', 'error_max_budget_usd', 'Reached maximum budget ($0.001)'],
    [
      'interrupted',
      'error_during_execution',
      '[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null',
    ],
    [
      'unknownSession',
      'error_during_execution',
      'No conversation found with session ID: 00000000-1111-2222-3333-444444444444',
    ],
    ['structuredOutput', 'error_max_structured_output_retries', 'Failed to produce valid structured output'],
  ] as const)('types the %s error result with errors and no result', (name, subtype, error) => {
    const result = parseResult(resultLines[name]);
    if (result.subtype === 'success') throw new Error('expected an error subtype');
    expect(result.subtype).toBe(subtype);
    expect(result.errors).toEqual([error]);
    expect(result).not.toHaveProperty('result');
  });
});

describe('CliMessageSchema on user and result lines', () => {
  it.each([...Object.values(userLines), ...Object.values(resultLines)])(
    'parses the parsed value to itself: %s',
    (line) => {
      const message = parseCliOutput(JSON.parse(line));
      expect(message.type).not.toBe('unknown');
      expect(CliMessageSchema.parse(message)).toEqual(message);
    },
  );
});
