import { randomUUID } from 'node:crypto';
import {
  MessagesRequestBodySchema,
  type RecordedRequest,
  type ScriptedBlock,
  type ScriptedModel,
  type ScriptedReply,
} from '@catalyst/testkit';
import { FINISHED, type JobBehaviour, type JobOutput, type JobSpec } from './jobs.ts';
import { runTool, type ToolRun } from './scripted-tools.ts';

/**
 * The claude of the in-process host: a job that speaks the CLI's stream-json protocol as claude-cli-protocol.md
 * measured it, around the same scripted replies the end-to-end tier gives its model server (testkit's `text`,
 * `toolUse`, `stall`, `httpError`, `streamedText`). Per message: `system/init`, then model round after model round
 * (each takes the next reply and is recorded as the request the model would be sent), tools asked about with
 * `can_use_tool` as the real CLI asks (AskUserQuestion always; Write, Edit and Bash when neither allowed nor in
 * acceptEdits), run for real on this machine (scripted-tools.ts), and exactly one `result` with the process's
 * cumulative cost. `--resume` keeps a conversation per cwd (§6), `--fork-session` copies it, an unknown one is
 * the one error line and exit 1; EOF while idle exits with the last result's error (§7.3); an interrupt ends the
 * turn with `error_during_execution` (§8.4); `--max-budget-usd` stops a turn that asks for a tool past it (§3.5).
 * What the real CLI decides itself (its prompts, its retries, its read-only judgement of Bash) is proven by the
 * end-to-end tier; this one proves what Catalyst does with what the CLI prints.
 */

const VERSION = '2.1.332';
const DEFAULT_MODEL = 'claude-opus-4-8';
/** What one model round costs, as the scripted model's usage prices it here. */
const ROUND_COST_USD = 0.001;

type Message = { role: 'user' | 'assistant'; content: Record<string, unknown>[] };
/** The conversations claude keeps on the host: by cwd, then by session id (§6: resume is scoped to the cwd). */
export type Conversations = Map<string, Map<string, Message[]>>;

/** The test's side: the ScriptedModel of the end-to-end tier, answered in this process. */
export class ClaudeScript implements ScriptedModel {
  readonly url = 'in-process';
  readonly #replies: ScriptedReply[] = [];
  readonly #requests: RecordedRequest[] = [];
  readonly #waiters = new Set<{ index: number; resolve: (request: RecordedRequest) => void }>();

  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.#replies.push(...replies);
  }

  remainingReplies(): number {
    return this.#replies.length;
  }

  discardReplies(): number {
    return this.#replies.splice(0).length;
  }

  waitForRequest(index: number): Promise<RecordedRequest> {
    const request = this.#requests[index];
    if (request !== undefined) return Promise.resolve(request);
    return new Promise((resolve) => this.#waiters.add({ index, resolve }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** A model round: recorded as the request the model is sent, answered with the next reply (none: HTTP 400). */
  take(model: string, messages: readonly Message[]): ScriptedReply {
    const index = this.#requests.length;
    const body = MessagesRequestBodySchema.parse({
      model,
      stream: true,
      messages: structuredClone(messages),
    });
    const request: RecordedRequest = { index, path: '/v1/messages', headers: {}, body };
    this.#requests.push(request);
    for (const waiter of this.#waiters) {
      if (waiter.index !== index) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(request);
    }
    return this.#replies.shift() ?? { kind: 'http_error', status: 400, message: 'no scripted reply' };
  }
}

interface Options {
  script: ClaudeScript;
  conversations: Conversations;
}

export function scriptedClaude(spec: JobSpec, output: JobOutput, options: Options): JobBehaviour {
  const args = spec.argv.slice(1);
  if (args[0] === 'auth') {
    output.out(`${JSON.stringify({ loggedIn: true, authMethod: 'apiKey', apiProvider: 'firstParty' })}\n`);
    output.exit(0);
    return FINISHED;
  }
  if (args.includes('--version')) {
    output.out(`${VERSION} (Claude Code)\n`);
    output.exit(0);
    return FINISHED;
  }
  return new ScriptedProcess(spec, output, options, args);
}

function valueOf(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

function listOf(value: string | undefined): string[] | undefined {
  return value?.split(/[\s,]+/).filter((name) => name !== '');
}

/** What a tool call is waiting for: the host's answer to its `can_use_tool`. */
interface Pending {
  requestId: string;
  resolve: (response: Record<string, unknown> | undefined) => void;
}

class ScriptedProcess implements JobBehaviour {
  readonly #spec: JobSpec;
  readonly #output: JobOutput;
  readonly #script: ClaudeScript;
  readonly #conversations: Conversations;
  readonly #resume: string | undefined;
  readonly #isFork: boolean;
  readonly #maxBudgetUsd: number | undefined;
  readonly #model: string;
  readonly #tools: string[] | undefined;
  readonly #allowed: string[];
  readonly #askRules: string[];
  readonly #canAsk: boolean;
  readonly #isPartial: boolean;
  #permissionMode: string;
  #sessionId: string | undefined;
  #messages: Message[] = [];
  #costUsd = 0;
  #lastIsError = false;
  readonly #inbox: string[] = [];
  #turn: { abort(): void; aborted: Promise<'aborted'> } | undefined;
  #pending: Pending | undefined;
  readonly #running = new Set<ToolRun>();
  #isInputClosed = false;
  #exitsAfterTurn = false;
  #isOver = false;

  constructor(spec: JobSpec, output: JobOutput, options: Options, args: readonly string[]) {
    this.#spec = spec;
    this.#output = output;
    this.#script = options.script;
    this.#conversations = options.conversations;
    this.#resume = valueOf(args, '--resume');
    this.#isFork = args.includes('--fork-session');
    const budget = valueOf(args, '--max-budget-usd');
    this.#maxBudgetUsd = budget === undefined ? undefined : Number(budget);
    this.#model = valueOf(args, '--model') ?? DEFAULT_MODEL;
    this.#tools = listOf(valueOf(args, '--tools'));
    this.#allowed = listOf(valueOf(args, '--allowedTools')) ?? [];
    const settings = valueOf(args, '--settings');
    this.#askRules = settings === undefined ? [] : askRulesOf(settings);
    this.#canAsk = valueOf(args, '--permission-prompt-tool') === 'stdio';
    this.#isPartial = args.includes('--include-partial-messages');
    this.#permissionMode = valueOf(args, '--permission-mode') ?? 'default';
  }

  line(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      // §7.1: fatal.
      this.#output.err(`Error parsing streaming input line: ${text}: ${String(error)}\n`);
      this.#exit(1);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const line = message as {
      type?: unknown;
      request_id?: unknown;
      request?: { subtype?: unknown; mode?: unknown };
      response?: { request_id?: unknown };
    };
    if (line.type === 'user') {
      this.#inbox.push(userTextOf(message));
      this.#next();
      return;
    }
    if (line.type === 'control_response') {
      const pending = this.#pending;
      if (pending !== undefined && line.response?.request_id === pending.requestId) {
        this.#pending = undefined;
        pending.resolve(line.response);
      }
      return;
    }
    if (line.type !== 'control_request' || typeof line.request_id !== 'string') return;
    const subtype = line.request?.subtype;
    if (subtype === 'set_permission_mode' && typeof line.request?.mode === 'string')
      this.#permissionMode = line.request.mode;
    if (subtype !== 'interrupt' && subtype !== 'set_permission_mode' && subtype !== 'initialize') {
      this.#print({
        type: 'control_response',
        response: {
          subtype: 'error',
          request_id: line.request_id,
          error: `Unsupported control request subtype: ${String(subtype)}`,
        },
      });
      return;
    }
    if (subtype === 'interrupt' && this.#pending !== undefined)
      this.#print({ type: 'control_cancel_request', request_id: this.#pending.requestId });
    this.#print({ type: 'control_response', response: { subtype: 'success', request_id: line.request_id } });
    if (subtype === 'interrupt') this.#turn?.abort();
  }

  endInput(): void {
    this.#isInputClosed = true;
    // §8.2: a prompt nobody answered fails once stdin closes; the turn goes on.
    this.#pending?.resolve(undefined);
    this.#pending = undefined;
    if (this.#turn === undefined && this.#inbox.length === 0) this.#exit(this.#lastIsError ? 1 : 0);
  }

  /** SIGINT (§9): the turn ends (interrupted, its result printed) and the process exits 0. */
  interrupt(): void {
    this.#exitsAfterTurn = true;
    if (this.#turn === undefined) this.#exit(0);
    else this.#turn.abort();
  }

  stop(): boolean {
    this.#isOver = true;
    for (const run of this.#running) run.stop();
    return false;
  }

  #print(line: Record<string, unknown>): void {
    if (!this.#isOver) this.#output.out(`${JSON.stringify(line)}\n`);
  }

  #exit(code: number): void {
    if (this.#isOver) return;
    this.#isOver = true;
    for (const run of this.#running) run.stop();
    this.#output.exit(code);
  }

  #next(): void {
    if (this.#turn !== undefined || this.#isOver) return;
    const message = this.#inbox.shift();
    if (message === undefined) {
      if (this.#isInputClosed) this.#exit(this.#lastIsError ? 1 : 0);
      return;
    }
    if (this.#sessionId === undefined && !this.#open()) return;
    this.#print({
      type: 'system',
      subtype: 'init',
      cwd: this.#spec.cwd,
      session_id: this.#sessionId,
      tools: this.#tools ?? ['Task', 'AskUserQuestion', 'Bash', 'Edit', 'Read', 'Write'],
      mcp_servers: [],
      model: this.#model,
      permissionMode: this.#permissionMode,
      slash_commands: [],
      apiKeySource: 'ANTHROPIC_API_KEY',
      claude_code_version: VERSION,
      uuid: randomUUID(),
    });
    let abort: () => void = () => undefined;
    const aborted = new Promise<'aborted'>(
      (resolve) =>
        (abort = () => {
          resolve('aborted');
        }),
    );
    this.#turn = { abort, aborted };
    this.#messages.push({ role: 'user', content: [{ type: 'text', text: message }] });
    void this.#run(Date.now());
  }

  /** The conversation of the first message: new, resumed or forked (§6). False when it does not exist. */
  #open(): boolean {
    const known = this.#conversations.get(this.#spec.cwd) ?? new Map<string, Message[]>();
    this.#conversations.set(this.#spec.cwd, known);
    if (this.#resume === undefined) {
      this.#sessionId = randomUUID();
    } else {
      const earlier = known.get(this.#resume);
      if (earlier === undefined) {
        const error = `No conversation found with session ID: ${this.#resume}`;
        this.#output.err(`${error}\n`);
        this.#sessionId = this.#resume;
        this.#print(
          this.#result('error_during_execution', { num_turns: 0, is_error: true, errors: [error] }),
        );
        this.#exit(1);
        return false;
      }
      this.#messages = structuredClone(earlier);
      this.#sessionId = this.#isFork ? randomUUID() : this.#resume;
    }
    known.set(this.#sessionId, this.#messages);
    return true;
  }

  async #run(startedAt: number): Promise<void> {
    const turn = this.#turn;
    if (turn === undefined) return;
    let rounds = 0;
    const end = (subtype: string, fields: Record<string, unknown>) => {
      this.#lastIsError = fields['is_error'] === true;
      this.#print({
        ...this.#result(subtype, { num_turns: rounds, ...fields }),
        duration_ms: Date.now() - startedAt,
      });
      this.#turn = undefined;
      if (this.#exitsAfterTurn) this.#exit(0);
      else this.#next();
    };
    const interrupted = (terminalReason: string) => {
      this.#print(userLine(this.#sessionId, '[Request interrupted by user]'));
      end('error_during_execution', {
        is_error: true,
        stop_reason: null,
        terminal_reason: terminalReason,
        errors: ['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'],
      });
    };
    for (;;) {
      rounds += 1;
      const reply = this.#script.take(this.#model, this.#messages);
      if (reply.kind === 'http_error' || reply.kind === 'stream_error') {
        const status = reply.kind === 'http_error' ? reply.status : 500;
        const text =
          `API Error: ${String(status)} ${reply.kind === 'http_error' ? (reply.message ?? '') : ''}`.trim();
        this.#assistant([{ type: 'text', text }], '<synthetic>');
        end('success', { is_error: true, api_error_status: status, result: text });
        return;
      }
      if (reply.kind === 'stall') {
        if (reply.partialText !== undefined) this.#assistant([{ type: 'text', text: reply.partialText }]);
        await turn.aborted;
        interrupted('aborted_streaming');
        return;
      }
      this.#costUsd += ROUND_COST_USD;
      const blocks = reply.content.map((block) => blockOf(block));
      // One message of the model: its stream events and its lines share its id (§3.2, §3.9).
      const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
      this.#stream(reply.content, messageId);
      for (const block of blocks) this.#assistant([block], this.#model, messageId);
      this.#messages.push({ role: 'assistant', content: blocks });
      const calls = blocks.filter((block) => block['type'] === 'tool_use');
      if (calls.length === 0) {
        const text = blocks
          .flatMap((block) => (block['type'] === 'text' ? [String(block['text'])] : []))
          .join('');
        end('success', { result: text });
        return;
      }
      if (this.#maxBudgetUsd !== undefined && this.#costUsd >= this.#maxBudgetUsd) {
        end('error_max_budget_usd', {
          is_error: true,
          stop_reason: 'tool_use',
          errors: [`Reached maximum budget ($${String(this.#maxBudgetUsd)})`],
        });
        return;
      }
      const results: Record<string, unknown>[] = [];
      for (const call of calls) {
        const result = await this.#call(call, turn.aborted);
        if (result === 'aborted') {
          interrupted('aborted_tools');
          return;
        }
        this.#print({
          ...userLine(this.#sessionId, ''),
          message: { role: 'user', content: [result.block] },
          tool_use_result: result.detail,
        });
        results.push(result.block);
        if (result.endsTurn) {
          this.#messages.push({ role: 'user', content: results });
          this.#print(userLine(this.#sessionId, '[Request interrupted by user for tool use]'));
          end('error_during_execution', {
            is_error: true,
            stop_reason: null,
            terminal_reason: 'aborted_tools',
            errors: [],
          });
          return;
        }
      }
      this.#messages.push({ role: 'user', content: results });
    }
  }

  /** One tool call: asked about when the CLI would ask (§5, §8.2, §8.3), then run. */
  async #call(
    call: Record<string, unknown>,
    aborted: Promise<'aborted'>,
  ): Promise<{ block: Record<string, unknown>; detail: unknown; endsTurn?: boolean } | 'aborted'> {
    const id = String(call['id']);
    const name = String(call['name']);
    let input = call['input'] as Record<string, unknown>;
    const fail = (content: string, detail: unknown = `Error: ${content}`) => ({
      block: { type: 'tool_result', tool_use_id: id, content, is_error: true },
      detail,
    });
    const isAvailable =
      (this.#tools === undefined || this.#tools.includes(name)) &&
      (name !== 'AskUserQuestion' || this.#canAsk);
    if (!isAvailable) return fail(`<tool_use_error>Error: No such tool available: ${name}</tool_use_error>`);
    if (this.#asks(name)) {
      const answer = await Promise.race([this.#ask(id, name, input), aborted]);
      if (answer === 'aborted') return 'aborted';
      const response = answer?.['response'] as Record<string, unknown> | undefined;
      if (answer === undefined)
        return fail(
          'Tool permission request failed: Error: Tool permission stream closed before response received',
        );
      if (answer['subtype'] === 'error')
        return fail(`Tool permission request failed: Error: ${String(answer['error'])}`);
      if (response?.['behavior'] === 'deny') {
        const message = String(response['message']);
        return { ...fail(message), endsTurn: response['interrupt'] === true };
      }
      const updated = response?.['updatedInput'];
      if (typeof updated !== 'object' || updated === null)
        return fail(
          'Tool permission request failed: ZodError: updatedInput: expected record, received undefined',
        );
      input = updated as Record<string, unknown>;
      this.#applyUpdates(response?.['updatedPermissions']);
    }
    const run = runTool(name, input, { cwd: this.#spec.cwd, tag: this.#spec.tag });
    this.#running.add(run);
    const outcome = await Promise.race([run.result, aborted]);
    this.#running.delete(run);
    if (outcome === 'aborted') {
      run.stop();
      return 'aborted';
    }
    return {
      block: {
        type: 'tool_result',
        tool_use_id: id,
        content: outcome.content,
        ...(outcome.isError ? { is_error: true } : {}),
      },
      detail: outcome.detail,
    };
  }

  #asks(name: string): boolean {
    if (!this.#canAsk) return false;
    if (name === 'AskUserQuestion') return true;
    if (this.#askRules.includes(name)) return true;
    if (!['Bash', 'Write', 'Edit', 'NotebookEdit'].includes(name)) return false;
    if (this.#allowed.includes(name) || this.#permissionMode === 'bypassPermissions') return false;
    return !(this.#permissionMode === 'acceptEdits' && name !== 'Bash');
  }

  #ask(
    id: string,
    name: string,
    input: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const requestId = randomUUID();
    const answered = new Promise<Record<string, unknown> | undefined>((resolve) => {
      this.#pending = { requestId, resolve };
    });
    this.#print({
      type: 'control_request',
      request_id: requestId,
      request: {
        subtype: 'can_use_tool',
        tool_name: name,
        display_name: name,
        input,
        ...(name === 'AskUserQuestion'
          ? {}
          : { permission_suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }] }),
        tool_use_id: id,
      },
    });
    return answered;
  }

  /** §8.2 [21d]: a setMode suggestion sent back changes the mode for the rest of the session. */
  #applyUpdates(updates: unknown): void {
    if (!Array.isArray(updates)) return;
    for (const update of updates as { type?: unknown; mode?: unknown }[]) {
      if (update.type !== 'setMode' || typeof update.mode !== 'string') continue;
      this.#permissionMode = update.mode;
      this.#print({
        type: 'system',
        subtype: 'status',
        status: null,
        permissionMode: update.mode,
        session_id: this.#sessionId,
        uuid: randomUUID(),
      });
    }
  }

  /** §3.9: the raw stream events of a model round, with `--include-partial-messages`. */
  #stream(content: readonly ScriptedBlock[], messageId: string): void {
    if (!this.#isPartial) return;
    const event = (value: Record<string, unknown>) => {
      this.#print({
        type: 'stream_event',
        event: value,
        session_id: this.#sessionId,
        parent_tool_use_id: null,
        uuid: randomUUID(),
      });
    };
    event({
      type: 'message_start',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: this.#model,
        content: [],
      },
    });
    content.forEach((block, index) => {
      if (block.type !== 'text') return;
      event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const delta of block.deltas ?? [block.text]) {
        event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: delta } });
      }
      event({ type: 'content_block_stop', index });
    });
    event({ type: 'message_stop' });
  }

  #assistant(
    content: Record<string, unknown>[],
    model = this.#model,
    messageId = `msg_${randomUUID().replaceAll('-', '')}`,
  ): void {
    this.#print({
      type: 'assistant',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 10 },
        context_management: null,
      },
      parent_tool_use_id: null,
      session_id: this.#sessionId,
      uuid: randomUUID(),
    });
  }

  #result(subtype: string, fields: Record<string, unknown>): Record<string, unknown> {
    return {
      type: 'result',
      subtype,
      is_error: false,
      api_error_status: null,
      duration_ms: 0,
      duration_api_ms: 1,
      num_turns: 1,
      stop_reason: 'end_turn',
      session_id: this.#sessionId,
      total_cost_usd: this.#costUsd,
      usage: { input_tokens: 100, output_tokens: 10 },
      modelUsage: {},
      permission_denials: [],
      terminal_reason: 'completed',
      uuid: randomUUID(),
      ...fields,
    };
  }
}

function blockOf(block: ScriptedBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: '' };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? `toolu_${randomUUID().replaceAll('-', '')}`,
        name: block.name,
        input: block.input,
      };
  }
}

function askRulesOf(settings: string): string[] {
  try {
    const parsed = JSON.parse(settings) as { permissions?: { ask?: unknown } };
    const ask = parsed.permissions?.ask;
    return Array.isArray(ask) ? ask.filter((rule): rule is string => typeof rule === 'string') : [];
  } catch {
    return [];
  }
}

function userTextOf(message: object): string {
  const content = (message as { message?: { content?: unknown } }).message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) =>
      typeof block === 'object' && block !== null && 'text' in block && typeof block.text === 'string'
        ? block.text
        : '',
    )
    .join('');
}

function userLine(sessionId: string | undefined, text: string): Record<string, unknown> {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
  };
}
