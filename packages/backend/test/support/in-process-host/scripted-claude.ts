import { randomUUID } from 'node:crypto';
import type { JobBehaviour, JobOutput, JobSpec } from './jobs.ts';

/**
 * The claude of the in-process host: a job that speaks the CLI's stream-json protocol as measured
 * (claude-cli-protocol.md §3, §4, §6, §7, §8.4, §9: a `system/init` and exactly one `result` per turn, cumulative
 * `total_cost_usd`, `--resume` of an unknown conversation answered by one error result and exit 1, EOF while idle
 * exits with the last result's error, an interrupt ends the turn with `error_during_execution`,
 * `--max-budget-usd` stops a turn that goes on past it with `error_max_budget_usd`) and replays the turns a test
 * scripted (ClaudeScript), in order, one per message. What the real CLI does with tools, permissions and the model
 * is proven by the end-to-end tier; this tier proves what Catalyst does with what the CLI prints.
 */

export type ScriptedTurn =
  /** The model answers with this text and the turn ends. */
  | { kind: 'text'; text: string; costUsd: number }
  /**
   * The model asks for a Bash call of `command`, which runs until `until` settles; then its result goes back and
   * the model ends the turn with `after`. With `--max-budget-usd` spent by `costUsd`, the CLI stops before the tool
   * runs instead (error_max_budget_usd, §3.5 [24-max-budget]).
   */
  | {
      kind: 'work';
      command: string;
      costUsd: number;
      until: Promise<void>;
      after: string;
      afterCostUsd: number;
    }
  /** The API refuses the request with this HTTP status (what the CLI prints for an API error). */
  | { kind: 'api_error'; status: number };

export interface Held {
  readonly turn: ScriptedTurn;
  /** The work ends: the turn finishes with its closing text. */
  readonly release: () => void;
}

const DEFAULT_COST_USD = 0.001;
const VERSION = '2.1.332 (Claude Code)';

/** A reply with text. */
export function reply(text: string, costUsd = DEFAULT_COST_USD): ScriptedTurn {
  return { kind: 'text', text, costUsd };
}

/** A turn whose Bash call `command` runs until released, then the model says `after`. */
export function work(command: string, options: { costUsd?: number; after?: string } = {}): Held {
  let release: () => void = () => undefined;
  const until = new Promise<void>((resolve) => (release = resolve));
  const turn: ScriptedTurn = {
    kind: 'work',
    command,
    costUsd: options.costUsd ?? DEFAULT_COST_USD,
    until,
    after: options.after ?? 'Done.',
    afterCostUsd: DEFAULT_COST_USD,
  };
  return { turn, release };
}

/** The turns of one test, in the order claude takes them, and the messages it was sent. */
export class ClaudeScript {
  readonly #turns: ScriptedTurn[] = [];
  readonly #messages: string[] = [];
  #waiters: (() => void)[] = [];

  enqueue(...turns: ScriptedTurn[]): void {
    this.#turns.push(...turns);
  }

  /** The messages claude was sent so far (each turn's user text). */
  get messages(): readonly string[] {
    return this.#messages;
  }

  /** Settles once claude has been sent `count` messages in all. */
  async messageCount(count: number): Promise<void> {
    while (this.#messages.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Drops the turns nobody took; how many there were (a test that leaves some did not go as it thinks). */
  discard(): number {
    return this.#turns.splice(0).length;
  }

  /** For the scripted claude: the next turn, for this message. No turn left: the API refuses (HTTP 400). */
  take(message: string): ScriptedTurn {
    this.#messages.push(message);
    for (const resolve of this.#waiters.splice(0)) resolve();
    return this.#turns.shift() ?? { kind: 'api_error', status: 400 };
  }
}

/** The conversations claude keeps on the host, by cwd (§6: resume is scoped to the cwd). */
export type Conversations = Map<string, Set<string>>;

interface Options {
  script: ClaudeScript;
  conversations: Conversations;
}

export function scriptedClaude(spec: JobSpec, output: JobOutput, options: Options): JobBehaviour {
  const args = spec.argv.slice(1);
  if (args[0] === 'auth') {
    output.out(`${JSON.stringify({ loggedIn: true, authMethod: 'apiKey', apiProvider: 'firstParty' })}\n`);
    output.exit(0);
    return idle();
  }
  if (args.includes('--version')) {
    output.out(`${VERSION}\n`);
    output.exit(0);
    return idle();
  }
  return new ScriptedProcess(spec, output, options, args);
}

function idle(): JobBehaviour {
  return {
    line: () => undefined,
    endInput: () => undefined,
    interrupt: () => undefined,
    stop: () => undefined,
  };
}

function valueOf(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

class ScriptedProcess implements JobBehaviour {
  readonly #spec: JobSpec;
  readonly #output: JobOutput;
  readonly #options: Options;
  readonly #resume: string | undefined;
  readonly #maxBudgetUsd: number | undefined;
  readonly #permissionMode: string;
  #sessionId: string | undefined;
  #costUsd = 0;
  #lastIsError = false;
  readonly #pending: string[] = [];
  #turn: { abort(): void } | undefined;
  #isInputClosed = false;
  #exitsAfterTurn = false;
  #isOver = false;

  constructor(spec: JobSpec, output: JobOutput, options: Options, args: readonly string[]) {
    this.#spec = spec;
    this.#output = output;
    this.#options = options;
    this.#resume = valueOf(args, '--resume');
    const budget = valueOf(args, '--max-budget-usd');
    this.#maxBudgetUsd = budget === undefined ? undefined : Number(budget);
    this.#permissionMode = valueOf(args, '--permission-mode') ?? 'default';
  }

  line(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.#output.err(`Error parsing streaming input line: ${text}: ${String(error)}\n`);
      this.#exit(1);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const line = message as { type?: unknown; request_id?: unknown; request?: { subtype?: unknown } };
    if (line.type === 'user') {
      this.#pending.push(userText(message));
      this.#next();
      return;
    }
    if (line.type === 'control_request' && typeof line.request_id === 'string') {
      this.#print({
        type: 'control_response',
        response: { subtype: 'success', request_id: line.request_id },
      });
      if (line.request?.subtype === 'interrupt') this.#turn?.abort();
    }
  }

  endInput(): void {
    this.#isInputClosed = true;
    if (this.#turn === undefined && this.#pending.length === 0) this.#exit(this.#lastIsError ? 1 : 0);
  }

  /** SIGINT: the turn ends (interrupted, its result printed) and the process exits 0 (§9). */
  interrupt(): void {
    this.#exitsAfterTurn = true;
    if (this.#turn === undefined) this.#exit(0);
    else this.#turn.abort();
  }

  stop(): void {
    this.#isOver = true;
  }

  #print(line: Record<string, unknown>): void {
    if (!this.#isOver) this.#output.out(`${JSON.stringify(line)}\n`);
  }

  #exit(code: number): void {
    if (this.#isOver) return;
    this.#isOver = true;
    this.#output.exit(code);
  }

  #next(): void {
    if (this.#turn !== undefined || this.#isOver) return;
    const message = this.#pending.shift();
    if (message === undefined) {
      if (this.#isInputClosed) this.#exit(this.#lastIsError ? 1 : 0);
      return;
    }
    if (this.#sessionId === undefined && this.#resume !== undefined && !this.#knows(this.#resume)) {
      // §6: one result line, no init, exit 1.
      this.#output.err(`No conversation found with session ID: ${this.#resume}\n`);
      this.#print(
        this.#result('error_during_execution', {
          num_turns: 0,
          session_id: this.#resume,
          errors: [`No conversation found with session ID: ${this.#resume}`],
        }),
      );
      this.#exit(1);
      return;
    }
    this.#sessionId ??= this.#resume ?? randomUUID();
    this.#remember(this.#sessionId);
    this.#print({
      type: 'system',
      subtype: 'init',
      cwd: this.#spec.cwd,
      session_id: this.#sessionId,
      tools: ['Task', 'AskUserQuestion', 'Bash', 'Edit', 'Read', 'Write'],
      mcp_servers: [],
      model: 'claude-opus-4-8',
      permissionMode: this.#permissionMode,
      slash_commands: [],
      apiKeySource: 'ANTHROPIC_API_KEY',
      claude_code_version: VERSION.split(' ')[0],
      uuid: randomUUID(),
    });
    void this.#run(this.#options.script.take(message));
  }

  async #run(turn: ScriptedTurn): Promise<void> {
    let abort: () => void = () => undefined;
    const aborted = new Promise<'aborted'>(
      (resolve) =>
        (abort = () => {
          resolve('aborted');
        }),
    );
    this.#turn = { abort };
    const startedAt = Date.now();
    const end = (line: Record<string, unknown>, isError: boolean) => {
      this.#lastIsError = isError;
      this.#print({ ...line, duration_ms: Date.now() - startedAt });
      this.#turn = undefined;
      if (this.#exitsAfterTurn) this.#exit(0);
      else this.#next();
    };
    if (turn.kind === 'api_error') {
      const text = `API Error: ${String(turn.status)} the scripted model has no reply for this request`;
      this.#assistant({ type: 'text', text }, '<synthetic>');
      end(this.#result('success', { is_error: true, api_error_status: turn.status, result: text }), true);
      return;
    }
    this.#costUsd += turn.costUsd;
    if (turn.kind === 'text') {
      this.#assistant({ type: 'text', text: turn.text });
      end(this.#result('success', { result: turn.text }), false);
      return;
    }
    const toolUseId = `toolu_${randomUUID().replaceAll('-', '')}`;
    this.#assistant({ type: 'tool_use', id: toolUseId, name: 'Bash', input: { command: turn.command } });
    if (this.#maxBudgetUsd !== undefined && this.#costUsd >= this.#maxBudgetUsd) {
      end(
        this.#result('error_max_budget_usd', {
          is_error: true,
          stop_reason: 'tool_use',
          errors: [`Reached maximum budget ($${String(this.#maxBudgetUsd)})`],
        }),
        true,
      );
      return;
    }
    if ((await Promise.race([turn.until, aborted])) === 'aborted') {
      this.#print(userLine(this.#sessionId, '[Request interrupted by user]'));
      end(
        this.#result('error_during_execution', {
          is_error: true,
          stop_reason: null,
          terminal_reason: 'aborted_streaming',
          errors: ['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'],
        }),
        true,
      );
      return;
    }
    this.#print({
      ...userLine(this.#sessionId, ''),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: '' }] },
      tool_use_result: { stdout: '', stderr: '', interrupted: false, isImage: false },
    });
    this.#costUsd += turn.afterCostUsd;
    this.#assistant({ type: 'text', text: turn.after });
    end(this.#result('success', { result: turn.after, num_turns: 2 }), false);
  }

  #assistant(block: Record<string, unknown>, model = 'claude-opus-4-8'): void {
    this.#print({
      type: 'assistant',
      message: {
        id: `msg_${randomUUID().replaceAll('-', '')}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
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

  #knows(sessionId: string): boolean {
    return this.#options.conversations.get(this.#spec.cwd)?.has(sessionId) === true;
  }

  #remember(sessionId: string): void {
    const known = this.#options.conversations.get(this.#spec.cwd) ?? new Set<string>();
    known.add(sessionId);
    this.#options.conversations.set(this.#spec.cwd, known);
  }
}

function userText(message: object): string {
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
