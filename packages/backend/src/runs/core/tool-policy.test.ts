import { describe, expect, it } from 'vitest';
import {
  isCanUseToolRequest,
  type CliControlRequestMessage,
  type HostControlResponse,
} from '@catalyst/protocol';
import { buildClaudeCommand } from '../../core/claude-command.ts';
import {
  askInput,
  bashWriteInput,
  canUseToolLine,
  lineOf,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  CHAT_READ_ONLY_MESSAGE,
  CHAT_TOOLS,
  answerControlRequest,
  answerUnreadableControlRequest,
  answererCommandOptions,
  asideCommandOptions,
  buildCommandOptions,
  chatCommandOptions,
  commandOptionsFor,
  decideToolUse,
} from './tool-policy.ts';

function controlRequest(raw: Record<string, unknown>): CliControlRequestMessage {
  const message = lineOf(raw);
  if (message.type !== 'control_request') throw new Error(`not a control request: ${message.type}`);
  return message;
}

function decide(mode: 'chat' | 'build', toolName: string, input: Record<string, unknown>) {
  const { request, request_id: requestId } = controlRequest(canUseToolLine(toolName, input));
  if (!isCanUseToolRequest(request)) throw new Error('not can_use_tool');
  return decideToolUse(mode, requestId, request);
}

const allow = (input: Record<string, unknown>): HostControlResponse => ({
  type: 'control_response',
  response: {
    subtype: 'success',
    request_id: 'req-perm-1',
    response: { behavior: 'allow', updatedInput: input },
  },
});

describe('decideToolUse', () => {
  it.each([
    ['Write', writeInput],
    ['Edit', { file_path: '/home/dev/work/a.txt', old_string: 'a', new_string: 'b' }],
    ['Bash', bashWriteInput],
    ['NotebookEdit', { notebook_path: '/home/dev/work/n.ipynb', new_source: '' }],
    ['SomeFutureTool', {}],
  ])('chat denies %s with the read-only message', (toolName, input) => {
    expect(decide('chat', toolName, input)).toEqual({
      kind: 'answer',
      verdict: 'deny',
      response: {
        type: 'control_response',
        response: {
          subtype: 'success',
          request_id: 'req-perm-1',
          response: { behavior: 'deny', message: CHAT_READ_ONLY_MESSAGE },
        },
      },
    });
  });

  it.each([
    ['Read', { file_path: '/home/dev/outside/other.txt' }],
    ['Grep', { pattern: 'TODO' }],
    ['Glob', { pattern: '**/*.ts' }],
  ])('chat allows the read-only %s, echoing its input as updatedInput (§8.2)', (toolName, input) => {
    expect(decide('chat', toolName, input)).toEqual({
      kind: 'answer',
      verdict: 'allow',
      response: allow(input),
    });
  });

  it.each([
    ['Write', writeInput],
    ['Bash', bashWriteInput],
  ])('build allows %s with updatedInput = the request input', (toolName, input) => {
    expect(decide('build', toolName, input)).toEqual({
      kind: 'answer',
      verdict: 'allow',
      response: allow(input),
    });
  });

  it.each(['chat', 'build'] as const)(
    'marks AskUserQuestion in %s as a question; its fallback allows without answers (§8.3)',
    (mode) => {
      const decision = decide(mode, 'AskUserQuestion', askInput);
      expect(decision).toMatchObject({ kind: 'question', requestId: 'req-perm-1' });
      if (decision.kind !== 'question') return;
      expect(decision.unanswered).toEqual(allow(askInput));
      expect(JSON.stringify(decision.unanswered)).not.toContain('answers');
    },
  );
});

describe('answerControlRequest', () => {
  it('answers AskUserQuestion with no answers, and says so in a note', () => {
    const answer = answerControlRequest(controlRequest(canUseToolLine('AskUserQuestion', askInput)), {
      mode: 'chat',
      isStopping: false,
    });
    expect(answer.response).toEqual(allow(askInput));
    expect(answer.note).toContain('no answers');
  });

  it('denies with interrupt every tool while the run is stopping', () => {
    const answer = answerControlRequest(controlRequest(canUseToolLine('Read', {})), {
      mode: 'build',
      isStopping: true,
    });
    expect(answer.response.response).toMatchObject({ response: { behavior: 'deny', interrupt: true } });
  });

  it('answers a request subtype it does not handle with an error envelope (§8)', () => {
    const raw = {
      type: 'control_request',
      request_id: 'r-9',
      request: { subtype: 'mcp_message', server: 'x' },
    };
    expect(answerControlRequest(controlRequest(raw), { mode: 'build', isStopping: false }).response).toEqual({
      type: 'control_response',
      response: {
        subtype: 'error',
        request_id: 'r-9',
        error: 'Unsupported control request subtype: mcp_message',
      },
    });
  });

  it('answers a malformed can_use_tool (an unknown message) with an error, so the CLI does not wait forever', () => {
    const message = lineOf({
      type: 'control_request',
      request_id: 'r-7',
      request: { subtype: 'can_use_tool' },
    });
    expect(message.type).toBe('unknown');
    if (message.type !== 'unknown') return;
    expect(answerUnreadableControlRequest(message)?.response.response).toMatchObject({
      subtype: 'error',
      request_id: 'r-7',
    });
    const other = lineOf({ type: 'bogus_type' });
    if (other.type === 'unknown') expect(answerUnreadableControlRequest(other)).toBeUndefined();
  });
});

describe('command options per mode', () => {
  it('chat restricts the tool set with --tools to read-only tools and AskUserQuestion, without Bash', () => {
    expect(CHAT_TOOLS).toEqual(['Read', 'Grep', 'Glob', 'AskUserQuestion']);
    const { argv } = buildClaudeCommand({ cwd: '/home/dev/work', ...chatCommandOptions() });
    const tools = argv[argv.indexOf('--tools') + 1];
    expect(tools).toBe('Read,Grep,Glob,AskUserQuestion');
    expect(argv).toContain('--permission-mode');
    expect(argv[argv.indexOf('--permission-mode') + 1]).toBe('default');
  });

  it('chat and the answerer load the user`s settings only and no MCP server', () => {
    for (const options of [chatCommandOptions(), answererCommandOptions()]) {
      const { argv } = buildClaudeCommand({ cwd: '/home/dev/work', ...options });
      expect(argv[argv.indexOf('--setting-sources') + 1]).toBe('user');
      expect(argv).toContain('--strict-mcp-config');
      expect(argv).not.toContain('--settings');
    }
    const answerer = buildClaudeCommand({ cwd: '/w', ...answererCommandOptions() }).argv;
    expect(answerer[answerer.indexOf('--tools') + 1]).toBe('');
  });

  it('an aside reads and searches only: chat`s tools without AskUserQuestion, user settings, no MCP server', () => {
    const { argv } = buildClaudeCommand({ cwd: '/w', ...asideCommandOptions() });
    expect(argv[argv.indexOf('--tools') + 1]).toBe('Read,Grep,Glob');
    expect(argv[argv.indexOf('--setting-sources') + 1]).toBe('user');
    expect(argv).toContain('--strict-mcp-config');
    expect(argv[argv.indexOf('--permission-mode') + 1]).toBe('default');
  });

  it('build under ask: user settings only, no MCP server, and ask rules for every tool that acts', () => {
    const { argv } = buildClaudeCommand({
      cwd: '/w',
      ...commandOptionsFor('build', { askPermissions: true }),
    });
    expect(argv[argv.indexOf('--setting-sources') + 1]).toBe('user');
    expect(argv).toContain('--strict-mcp-config');
    expect(JSON.parse(argv[argv.indexOf('--settings') + 1] ?? '')).toEqual({
      permissions: { ask: ['Bash', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'WebSearch'] },
    });
    expect(argv[argv.indexOf('--permission-mode') + 1]).toBe('default');
  });

  it('build restricts nothing, adds Glob and Grep, and never bypasses permissions', () => {
    const { argv } = buildClaudeCommand({ cwd: '/home/dev/work', ...buildCommandOptions() });
    expect(argv).toEqual(buildClaudeCommand({ cwd: '/home/dev/work', ...commandOptionsFor('build') }).argv);
    expect(argv).not.toContain('--tools');
    expect(argv).not.toContain('--setting-sources');
    expect(argv).not.toContain('--settings');
    expect(argv[argv.indexOf('--allowedTools') + 1]).toBe('Glob,Grep');
    expect(argv[argv.indexOf('--permission-mode') + 1]).toBe('default');
    expect(argv.join(' ')).not.toMatch(/bypassPermissions|dangerously/);
  });
});
