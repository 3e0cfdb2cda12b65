import { describe, it, expect } from 'vitest';
import { isCanUseToolRequest } from './cli-control.ts';
import { CliMessageSchema, parseCliOutput, type CliMessage } from './cli-output.ts';

// Lines copied from claude-cli-protocol.md (section in each name), "…" elisions replaced by plausible values.
const SID = 'aeb165df-4889-431c-92f5-d781e8dd8402';
const IDS = `"session_id":"${SID}","uuid":"c7f6190e-6758-4dfc-b04a-134546388620"`;

const systemLines = {
  init: String.raw`{"type":"system","subtype":"init","cwd":"/home/dev/work","session_id":"3dcbc69c-0df3-4aa4-b5e7-e1fe3915616c","tools":["Task","AskUserQuestion","Bash","CronCreate","CronDelete","CronList","Edit","EnterPlanMode","EnterWorktree","ExitPlanMode","ExitWorktree","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskCreate","TaskGet","TaskList","TaskOutput","TaskStop","TaskUpdate","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":"claude-opus-4-8[1m]","permissionMode":"default","slash_commands":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator","clear","compact","config","context","heapdump","init","reload-skills","review","security-review","usage","insights","goal","team-onboarding"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator"],"plugins":[],"analytics_disabled":true,"product_feedback_disabled":true,"uuid":"d0778104-aae2-49f7-bde0-b8ef83cc2316","memory_paths":{"auto":"/home/dev/.claude/projects/-home-dev-work/memory/"},"fast_mode_state":"off"}`,
  api_retry: `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":537.360513953122,"error_status":529,"error":"overloaded",${IDS}}`,
  status: `{"type":"system","subtype":"status","status":"requesting",${IDS}}`,
  thinking_tokens: `{"type":"system","subtype":"thinking_tokens","estimated_tokens":10,"estimated_tokens_delta":10,${IDS}}`,
  task_started: `{"type":"system","subtype":"task_started","task_id":"a14ee800216927451","tool_use_id":"toolu_mockmwram4bw3e6b1e1f","description":"Investigate sample","subagent_type":"general-purpose","task_type":"local_agent","prompt":"please investigate",${IDS}}`,
  task_updated: `{"type":"system","subtype":"task_updated","task_id":"a14ee800216927451","patch":{"status":"completed","end_time":1795319059894},${IDS}}`,
  task_notification: `{"type":"system","subtype":"task_notification","task_id":"a14ee800216927451","tool_use_id":"toolu_mockmwram4bw3e6b1e1f","status":"completed","output_file":"","summary":"Investigate sample","usage":{"total_tokens":101,"tool_uses":0,"duration_ms":47},${IDS}}`,
  compact_boundary: `{"type":"system","subtype":"compact_boundary",${IDS},"compact_metadata":{"trigger":"manual","pre_tokens":113,"post_tokens":580,"cumulative_dropped_tokens":0,"duration_ms":32,"preserved_segment":{"head_uuid":"02b5e5b6-1","anchor_uuid":"29a8ff3a-1","tail_uuid":"02b5e5b6-1"},"preserved_messages":{"anchor_uuid":"29a8ff3a-1","uuids":["02b5e5b6-1"],"all_uuids":["02b5e5b6-1"]}}}`,
};

const apiMessage = (content: string, extra = '') =>
  `{"id":"msg_mockmwra86y9311175d","type":"message","role":"assistant","model":"claude-opus-4-8","content":[${content}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1},"context_management":null${extra}}`;
const assistantLine = (content: string) =>
  `{"type":"assistant","message":${apiMessage(content)},"parent_tool_use_id":null,${IDS},"request_id":"req_mockmwra86y920540c0"}`;

const assistantLines = {
  text: assistantLine(`{"type":"text","text":"I'll read the file."}`),
  toolUse: assistantLine(
    `{"type":"tool_use","id":"toolu_mockmwra86y91dc23b4","name":"Read","input":{"file_path":"/home/dev/work/sample.txt"}}`,
  ),
  thinking: assistantLine(
    `{"type":"thinking","thinking":"Let me think about this carefully. The user wants a greeting.","signature":"mock-signature-af1fdf37e409d6ab"}`,
  ),
  redactedThinking: assistantLine(`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"}`),
  synthetic: `{"type":"assistant","message":{"id":"1f74908b-6194-4e4e-8d7e-cac43155fe7f","container":null,"model":"<synthetic>","role":"assistant","stop_details":null,"stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{"input_tokens":0,"output_tokens":0},"content":[{"type":"text","text":"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."}],"context_management":null},"parent_tool_use_id":null,${IDS},"error":"server_error","request_id":"req_mockmwra8r7l1mb4aaff"}`,
};

const controlLines = {
  canUseTool: String.raw`{"type":"control_request","request_id":"2bbcbfae-18ed-4b17-833c-fb2cf8f95374","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"echo should-not-run > /home/dev/work/bash-ran.txt","description":"Write via bash"},"description":"Write via bash","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"echo should-not-run *"}],"behavior":"allow","destination":"localSettings"},{"type":"addDirectories","directories":["/home/dev/work"],"destination":"session"}],"blocked_path":"/home/dev/work/bash-ran.txt","tool_use_id":"toolu_mockmwrac9w84aed59ac"}}`,
  canUseToolMinimal: `{"type":"control_request","request_id":"r-2","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/home/dev/work/x.txt","content":"nope\\n"}}}`,
  generic: `{"type":"control_request","request_id":"r-3","request":{"subtype":"hook_callback","callback_id":"cb-1"}}`,
  responseSuccess: `{"type":"control_response","response":{"subtype":"success","request_id":"init-1","response":{"output_style":"default","pid":17348}}}`,
  responseEmpty: `{"type":"control_response","response":{"subtype":"success","request_id":"int-1"}}`,
  responseError: `{"type":"control_response","response":{"subtype":"error","request_id":"bogus-1","error":"Unsupported control request subtype: no_such_subtype"}}`,
  cancel: `{"type":"control_cancel_request","request_id":"d6a1bae4-0000-4000-8000-000000000000"}`,
};

const streamEventLine = `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Part one ."}},${IDS},"parent_tool_use_id":null}`;

function hasType<T extends CliMessage['type']>(
  message: CliMessage,
  type: T,
): message is Extract<CliMessage, { type: T }> {
  return message.type === type;
}

function parseAs<T extends CliMessage['type']>(line: string, type: T): Extract<CliMessage, { type: T }> {
  const message = parseCliOutput(JSON.parse(line));
  if (!hasType(message, type))
    throw new Error(`expected ${type}, got ${JSON.stringify(message).slice(0, 400)}`);
  return message;
}

describe('parseCliOutput: system lines (§3)', () => {
  it.each(Object.entries(systemLines))('types system/%s', (subtype, line) => {
    expect(parseAs(line, 'system').subtype).toBe(subtype);
  });

  it('types the init fields and keeps the untyped ones (§3.1)', () => {
    const init = parseAs(systemLines.init, 'system');
    if (init.subtype !== 'init') throw new Error(init.subtype);
    expect(init.cwd).toBe('/home/dev/work');
    expect(init.model).toBe('claude-opus-4-8[1m]');
    expect(init.tools).toContain('AskUserQuestion');
    expect(init.memory_paths).toEqual({ auto: '/home/dev/.claude/projects/-home-dev-work/memory/' });
    expect(init.fast_mode_state).toBe('off');
  });

  it('accepts the status lines of /compact, including one without ids (§3.10)', () => {
    const failed = parseAs(
      '{"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"Not enough messages to compact."}',
      'system',
    );
    expect(failed).toMatchObject({
      subtype: 'status',
      status: null,
      compact_error: 'Not enough messages to compact.',
    });
  });

  it('accepts an api_retry with a null error_status (connection errors, §3.6)', () => {
    const line = systemLines.api_retry.replace('"error_status":529', '"error_status":null');
    expect(parseAs(line, 'system')).toMatchObject({ subtype: 'api_retry', error_status: null });
  });
});

describe('parseCliOutput: assistant lines (§3.2, §3.6)', () => {
  it('types a text block', () => {
    const message = parseAs(assistantLines.text, 'assistant');
    expect(message.message.content).toEqual([{ type: 'text', text: "I'll read the file." }]);
    expect(message.message.stop_reason).toBeNull();
  });

  it('types a tool_use block with its input', () => {
    const block = parseAs(assistantLines.toolUse, 'assistant').message.content[0];
    if (block?.type !== 'tool_use') throw new Error(String(block?.type));
    expect(block.name).toBe('Read');
    expect(block.input).toEqual({ file_path: '/home/dev/work/sample.txt' });
  });

  it('types thinking and redacted_thinking blocks, keeping the signature', () => {
    const thinking = parseAs(assistantLines.thinking, 'assistant').message.content[0];
    expect(thinking).toMatchObject({ type: 'thinking', signature: 'mock-signature-af1fdf37e409d6ab' });
    const redacted = parseAs(assistantLines.redactedThinking, 'assistant').message.content[0];
    expect(redacted).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' });
  });

  it('types the synthetic API-error line with its top-level error', () => {
    const message = parseAs(assistantLines.synthetic, 'assistant');
    expect(message.message.model).toBe('<synthetic>');
    expect(message.error).toBe('server_error');
    expect(message.message.stop_reason).toBe('stop_sequence');
  });

  it('keeps unknown fields of the line, the API message and the block', () => {
    const message = parseAs(assistantLines.thinking, 'assistant');
    expect(message.request_id).toBe('req_mockmwra86y920540c0');
    expect(message.message.usage).toEqual({ input_tokens: 100, output_tokens: 1 });
    expect(message.message.stop_sequence).toBeNull();
  });
});

describe('parseCliOutput: stream_event and control lines (§3.9, §8)', () => {
  it('types a stream_event by its event type and keeps the event', () => {
    const message = parseAs(streamEventLine, 'stream_event');
    expect(message.event.type).toBe('content_block_delta');
    expect(message.event.delta).toEqual({ type: 'text_delta', text: 'Part one .' });
  });

  it('types a can_use_tool request with every documented field (§8.2)', () => {
    const message = parseAs(controlLines.canUseTool, 'control_request');
    if (!isCanUseToolRequest(message.request)) throw new Error(message.request.subtype);
    expect(message.request_id).toBe('2bbcbfae-18ed-4b17-833c-fb2cf8f95374');
    expect(message.request.tool_name).toBe('Bash');
    expect(message.request.blocked_path).toBe('/home/dev/work/bash-ran.txt');
    expect(message.request.permission_suggestions?.map((s) => s.type)).toEqual([
      'addRules',
      'addDirectories',
    ]);
    expect(message.request.permission_suggestions?.[0]?.rules).toEqual([
      { toolName: 'Bash', ruleContent: 'echo should-not-run *' },
    ]);
  });

  it('accepts a can_use_tool without its optional fields', () => {
    const message = parseAs(controlLines.canUseToolMinimal, 'control_request');
    expect(isCanUseToolRequest(message.request)).toBe(true);
    expect(message.request).not.toHaveProperty('tool_use_id');
  });

  it('types an unknown request subtype as a generic control request, kept whole', () => {
    const message = parseAs(controlLines.generic, 'control_request');
    expect(isCanUseToolRequest(message.request)).toBe(false);
    expect(message.request).toEqual({ subtype: 'hook_callback', callback_id: 'cb-1' });
  });

  it('types control responses: success with and without payload, and error', () => {
    expect(parseAs(controlLines.responseSuccess, 'control_response').response).toMatchObject({
      subtype: 'success',
      response: { pid: 17348 },
    });
    expect(parseAs(controlLines.responseEmpty, 'control_response').response).toEqual({
      subtype: 'success',
      request_id: 'int-1',
    });
    expect(parseAs(controlLines.responseError, 'control_response').response).toMatchObject({
      subtype: 'error',
      error: 'Unsupported control request subtype: no_such_subtype',
    });
  });

  it('types control_cancel_request', () => {
    expect(parseAs(controlLines.cancel, 'control_cancel_request').request_id).toBe(
      'd6a1bae4-0000-4000-8000-000000000000',
    );
  });
});

/** A Bash call's heartbeat, as 2.1.331 printed it 30 s into a command that waited (a build's step, by hand). */
const toolProgressLine = String.raw`{"type":"tool_progress","tool_use_id":"toolu_msg_scripted_1_0-heartbeat-0","tool_name":"Bash","parent_tool_use_id":"toolu_msg_scripted_1_0","elapsed_time_seconds":30,"heartbeat":true,"session_id":"8f529aae-ff65-420d-b34b-3b081108ffe9","uuid":"4526e6fa-5098-4d94-ab22-8be231a95561"}`;

/** What 2.1.331 printed when a Bash command passed its 120 s limit and went on in the background (a build, by hand). */
const backgroundTasksLine = String.raw`{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"bwx1v3im1","run_id":"0mwyf33lt-74d02cb3","task_type":"local_bash","description":"Wait for go"}],"uuid":"2b6b7789-b43d-4f17-9e59-9f5f8acdd997","session_id":"8f529aae-ff65-420d-b34b-3b081108ffe9"}`;
/** The result of the CLI's own turn that told the resumed session its background command had been stopped. */
const ownTurnResultLine = String.raw`{"type":"result","subtype":"success","is_error":false,"duration_ms":292,"duration_api_ms":0,"num_turns":0,"result":"","stop_reason":null,"session_id":"8f529aae-ff65-420d-b34b-3b081108ffe9","total_cost_usd":0.00246,"permission_denials":[],"origin":{"kind":"task-notification"},"uuid":"5d1f0b34-0000-4000-8000-000000000000"}`;

describe('parseCliOutput: lines measured on 2.1.331', () => {
  it('types the list of background tasks', () => {
    const message = parseAs(backgroundTasksLine, 'system');
    expect(message).toMatchObject({
      subtype: 'background_tasks_changed',
      tasks: [{ task_id: 'bwx1v3im1', task_type: 'local_bash', description: 'Wait for go' }],
    });
  });

  it('types the result of a turn the CLI ran by itself, which has no api_error_status, keeping its origin', () => {
    const message = parseAs(ownTurnResultLine, 'result');
    expect(message).toMatchObject({
      subtype: 'success',
      num_turns: 0,
      origin: { kind: 'task-notification' },
    });
  });
});

describe('parseCliOutput: tool_progress', () => {
  it('types a running tool’s heartbeat, naming its call', () => {
    const message = parseAs(toolProgressLine, 'tool_progress');
    expect(message).toMatchObject({
      tool_name: 'Bash',
      parent_tool_use_id: 'toolu_msg_scripted_1_0',
      elapsed_time_seconds: 30,
      heartbeat: true,
    });
  });
});

describe('CliMessageSchema', () => {
  const all = [
    ...Object.values(systemLines),
    ...Object.values(assistantLines),
    ...Object.values(controlLines),
    streamEventLine,
    toolProgressLine,
    backgroundTasksLine,
    ownTurnResultLine,
  ];

  it.each(all)('parses what parseCliOutput returned to the same value: %s', (line) => {
    const message = parseCliOutput(JSON.parse(line));
    expect(message.type).not.toBe('unknown');
    expect(CliMessageSchema.parse(message)).toEqual(message);
  });
});
