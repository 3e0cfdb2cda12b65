import {
  ASK_USER_QUESTION_TOOL_NAME,
  ControlRequestEnvelopeSchema,
  createAllowResponse,
  createDenyResponse,
  createErrorResponse,
  isCanUseToolRequest,
  type CanUseToolRequest,
  type CliControlRequestMessage,
  type HostControlResponse,
  type RunMode,
  type UnknownCliMessage,
} from '@catalyst/protocol';
import type { ClaudeCommandOptionsInput, SettingSource } from '../../core/claude-command.ts';

/**
 * What Claude may do in each run mode, in two layers (claude-cli-protocol.md §2.4, §5, §8.2):
 *
 * 1. The tool set. `--allowedTools` only pre-approves and leaves every other tool available (§12); `--tools`
 *    really restricts the set. Chat runs with `--tools` = CHAT_TOOLS. Build keeps the default set.
 * 2. The answer to each `can_use_tool` request (the CLI asks only about calls that need permission: reads inside
 *    the project and read-only Bash are not asked about, §8.2). Chat allows the read-only tools and denies anything
 *    else; build allows everything. An allow always echoes the request's input as `updatedInput`: an allow
 *    without it fails the CLI's validation and counts as a denial (§8.2 [21a]).
 *
 * Both modes run with `--permission-mode default`. Never `bypassPermissions`: the CLI refuses it as root unless
 * IS_SANDBOX=1 (§5), and it would skip the `can_use_tool` requests this policy relies on.
 */

/** Tools that read and never change anything. */
export const READ_ONLY_TOOLS = ['Read', 'Grep', 'Glob'] as const;

/**
 * The chat tool set. Glob and Grep are not in this CLI's default set and exist only when named (§2.4), which
 * `--tools` does. AskUserQuestion exists only with `--permission-prompt-tool stdio`, which every run has.
 *
 * Bash is left out, even read-only. The CLI runs a command it judges read-only without asking (§5, §8.2), so
 * Catalyst could not see, let alone refuse, a Bash call that writes after all: the CLI's own judgement (measured on
 * a few commands only) would be the one guard of "chat changes nothing". Bash children also outlive a killed CLI
 * (§9). Read, Grep and Glob cover reading the project.
 */
export const CHAT_TOOLS = [...READ_ONLY_TOOLS, ASK_USER_QUESTION_TOOL_NAME] as const;

/** Build adds Glob and Grep to the default set by naming them in `--allowedTools` (§2.4, §5 [09-allowed-RGG]). */
export const BUILD_EXTRA_TOOLS = ['Glob', 'Grep'] as const;

export const STOPPING_MESSAGE = 'Catalyst is stopping this run.';

export const CHAT_READ_ONLY_MESSAGE =
  'Chat mode is read-only: switch to Build to let Claude change files or run commands.';

export type ModeCommandOptions = Pick<
  ClaudeCommandOptionsInput,
  'tools' | 'allowedTools' | 'permissionMode' | 'settingSources' | 'strictMcpConfig' | 'askRules'
>;

/**
 * What to do with one `can_use_tool` request:
 * - `answer`: write `response` back at once;
 * - `question`: an AskUserQuestion, for the caller to route to a person. `unanswered` is the allow with the input
 *   unchanged and no `answers`, which the model reads as "The user did not answer the questions." (§8.3): the
 *   answer to send while questions are not routed yet, or when none comes.
 */
export type ToolDecision =
  | { kind: 'answer'; verdict: 'allow' | 'deny'; response: HostControlResponse }
  | { kind: 'question'; requestId: string; request: CanUseToolRequest; unanswered: HostControlResponse };

const readOnlyTools: ReadonlySet<string> = new Set(READ_ONLY_TOOLS);

export function decideToolUse(mode: RunMode, requestId: string, request: CanUseToolRequest): ToolDecision {
  if (request.tool_name === ASK_USER_QUESTION_TOOL_NAME) {
    return {
      kind: 'question',
      requestId,
      request,
      unanswered: createAllowResponse(requestId, request.input),
    };
  }
  switch (mode) {
    case 'build':
      return allow(requestId, request);
    case 'chat':
      // Unknown tools are denied too: only what is known to be read-only may run in chat.
      return readOnlyTools.has(request.tool_name)
        ? allow(requestId, request)
        : {
            kind: 'answer',
            verdict: 'deny',
            response: createDenyResponse(requestId, CHAT_READ_ONLY_MESSAGE),
          };
  }
}

function allow(requestId: string, request: CanUseToolRequest): ToolDecision {
  return { kind: 'answer', verdict: 'allow', response: createAllowResponse(requestId, request.input) };
}

export interface ControlAnswer {
  response: HostControlResponse;
  /** Worth a log line: what was decided on someone's behalf. */
  note?: string;
}

/** §8: the CLI waits for an answer to every request it sends; one we do not handle gets an error envelope. */
export function answerControlRequest(
  message: CliControlRequestMessage,
  options: { mode: RunMode; isStopping: boolean },
): ControlAnswer {
  const { request, request_id: requestId } = message;
  if (!isCanUseToolRequest(request)) {
    return {
      response: createErrorResponse(requestId, `Unsupported control request subtype: ${request.subtype}`),
    };
  }
  // §8.2: deny + interrupt ends the turn at once, which is what a stop waits for.
  if (options.isStopping)
    return { response: createDenyResponse(requestId, STOPPING_MESSAGE, { interrupt: true }) };
  const decision = decideToolUse(options.mode, requestId, request);
  switch (decision.kind) {
    case 'answer':
      return { response: decision.response };
    case 'question':
      // Until questions reach a person, the model is told "The user did not answer the questions." (§8.3).
      return {
        response: decision.unanswered,
        note: `AskUserQuestion ${requestId} answered with no answers: questions are not routed to a person yet`,
      };
  }
}

/**
 * protocol cli-control.ts: a control request the parser could not type (a malformed can_use_tool) is still waited
 * on. An error envelope makes the tool fail ("Tool permission request failed", a denial) and the turn go on (§8.2).
 */
export function answerUnreadableControlRequest(message: UnknownCliMessage): ControlAnswer | undefined {
  if (message.originalType !== 'control_request') return undefined;
  const envelope = ControlRequestEnvelopeSchema.safeParse(message.raw);
  if (!envelope.success) return undefined;
  const why = `Catalyst could not read this request: ${message.reason}`;
  return { response: createErrorResponse(envelope.data.request_id, why), note: why };
}

/**
 * Which Claude settings a run loads (docs/security.md, "Claude settings per run"). The project's
 * `.claude/settings.json` and `settings.local.json` (hooks, `env` such as ANTHROPIC_BASE_URL, allow rules) and its
 * `.mcp.json` can come from a cloned repository or a build, and the CLI applies them in `-p` without a trust dialog
 * (hooks, env and local allow rules measured on 2.1.331; only project allow rules wait for trust). Runs that must
 * not be steered by the project load the user's settings only: the VM user's own login, env and model settings.
 */
export const USER_SETTINGS_ONLY: readonly SettingSource[] = ['user'];

/**
 * Build under permissionPolicy `ask`: rules that make the CLI send `can_use_tool` for every call of these tools,
 * even when a user's allow rule (`Write`, `Bash(npm *)`) or a user's PreToolUse hook would approve it, and even
 * for Bash commands the CLI judges read-only (measured on 2.1.331, docs/protocol.md "Settings"). These are the
 * tools that change files, run code or reach the network; reads stay unasked (the backend allows them anyway).
 * Not `*`: that would also ask about the task list and the other bookkeeping tools.
 */
export const ASK_RULE_TOOLS = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'WebSearch'] as const;

/** Whether the person approves tool calls (permissionPolicy `ask`, build only). */
export interface CommandPolicy {
  askPermissions?: boolean | undefined;
}

/** Chat: read-only tools, user settings only, no MCP server (a user's allow rule could run an MCP tool). */
export function chatCommandOptions(): ModeCommandOptions {
  return {
    tools: [...CHAT_TOOLS],
    permissionMode: 'default',
    settingSources: [...USER_SETTINGS_ONLY],
    strictMcpConfig: true,
  };
}

/**
 * Build with permissionPolicy `auto` loads every settings source and MCP server: it may run anything anyway.
 * Under `ask` nothing may act without the person: no project settings (their hooks run commands unasked), no MCP
 * server (an allow rule for an MCP tool cannot be overridden by name in advance), and ask rules over user allows.
 */
export function buildCommandOptions(policy: CommandPolicy = {}): ModeCommandOptions {
  const options: ModeCommandOptions = { allowedTools: [...BUILD_EXTRA_TOOLS], permissionMode: 'default' };
  if (policy.askPermissions !== true) return options;
  return {
    ...options,
    settingSources: [...USER_SETTINGS_ONLY],
    strictMcpConfig: true,
    askRules: [...ASK_RULE_TOOLS],
  };
}

/** The question answerer: no tool at all, user settings only, no MCP server. */
export function answererCommandOptions(): ModeCommandOptions {
  return { tools: [], settingSources: [...USER_SETTINGS_ONLY], strictMcpConfig: true };
}

/**
 * A question aside (issue 30): chat's read-only tools without AskUserQuestion (nobody answers an aside's questions),
 * user settings only, no MCP server. Its `can_use_tool` requests (a read outside the project) get chat's answers.
 */
export function asideCommandOptions(): ModeCommandOptions {
  return { ...chatCommandOptions(), tools: [...READ_ONLY_TOOLS] };
}

export function commandOptionsFor(mode: RunMode, policy: CommandPolicy = {}): ModeCommandOptions {
  switch (mode) {
    case 'chat':
      return chatCommandOptions();
    case 'build':
      return buildCommandOptions(policy);
  }
}
