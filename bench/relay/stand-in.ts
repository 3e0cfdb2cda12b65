/**
 * A stand-in for `claude` on the VM, for bench/relay/main.ts, which transpiles it to plain JavaScript and
 * installs it in a temp dir with a shebang naming this machine's node: it imports nothing but node's own modules.
 * It takes the CLI's flags and ignores them, reads user messages (stream-json, claude-cli-protocol.md §7.1), each
 * a turn, whose text says `relay-bench tag=<tag> lines=<n> rate=<per second>`, then prints a system/init line (§3.1), n
 * assistant text lines (§3.2) at that rate and a result/success line (§3.4). Each text is
 * `relay-bench <tag> <index> <send time>`: the send time is performance.timeOrigin + performance.now() in ms, a
 * clock that agrees across the processes of one machine to about a microsecond. Like the CLI (§7.3) it waits between
 * turns, and exits once stdin has ended and no turn runs. Its stderr stays empty:
 * the backend would relay anything there as claude:error events.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

const SESSION_ID = randomUUID();
const MESSAGE_ID = `msg_bench${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const MODEL = 'claude-opus-4-8';
const PLAN = /relay-bench tag=(\S+) lines=(\d+) rate=(\d+)/;
const USAGE = {
  input_tokens: 100,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 1,
};

const now = () => performance.timeOrigin + performance.now();

interface Plan {
  readonly tag: string;
  readonly lines: number;
  readonly intervalMs: number;
}

interface Sent {
  readonly sent: number;
  readonly maxLagMs: number;
  readonly elapsedMs: number;
}

function writeLine(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function initLine(): object {
  return {
    type: 'system',
    subtype: 'init',
    cwd: process.cwd(),
    session_id: SESSION_ID,
    tools: ['Bash', 'Edit', 'Read', 'Write'],
    mcp_servers: [],
    model: `${MODEL}[1m]`,
    permissionMode: 'default',
    slash_commands: ['clear', 'compact', 'review'],
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: '2.1.197',
    output_style: 'default',
    agents: ['general-purpose'],
    skills: [],
    plugins: [],
    analytics_disabled: true,
    product_feedback_disabled: true,
    uuid: randomUUID(),
    memory_paths: { auto: `${process.env.HOME ?? '/home'}/.claude/projects/bench/memory/` },
    fast_mode_state: 'off',
  };
}

function assistantLine(text: string): object {
  return {
    type: 'assistant',
    message: {
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text }],
      stop_reason: null,
      stop_sequence: null,
      usage: USAGE,
      context_management: null,
    },
    parent_tool_use_id: null,
    session_id: SESSION_ID,
    uuid: randomUUID(),
    request_id: 'req_bench',
  };
}

function resultLine(text: string, durationMs: number): object {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    api_error_status: null,
    duration_ms: Math.round(durationMs),
    duration_api_ms: Math.round(durationMs),
    ttft_ms: 1,
    num_turns: 1,
    result: text,
    stop_reason: 'end_turn',
    session_id: SESSION_ID,
    total_cost_usd: 0,
    usage: { ...USAGE, service_tier: 'standard' },
    modelUsage: {},
    permission_denials: [],
    terminal_reason: 'completed',
    fast_mode_state: 'off',
    uuid: randomUUID(),
  };
}

/** The plan from the first user message: §7.1 content is an array of text blocks or a plain string. */
function readPlan(line: string): Plan {
  const match = PLAN.exec(userText(parseJson(line)));
  if (match === null) return { tag: 'none', lines: 0, intervalMs: 1 };
  const [, tag = 'none', lines = '0', rate = '1'] = match;
  return { tag, lines: Number(lines), intervalMs: 1000 / Number(rate) };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? Object.entries(value).find(([name]) => name === key)?.[1]
    : undefined;
}

function userText(line: unknown): string {
  const content = field(field(line, 'message'), 'content');
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => field(block, 'text'))
    .filter((text) => typeof text === 'string')
    .join('\n');
}

/**
 * Line k is due at start + k × interval. Each tick writes every line that is due, so a late timer (a busy
 * machine) is caught up in a burst rather than stretching the run; each text carries its own write time.
 */
function sendLines(plan: Plan, onDone: (sent: Sent) => void): void {
  const start = now();
  let sent = 0;
  let maxLagMs = 0;
  const tick = () => {
    const due = Math.min(plan.lines, Math.floor((now() - start) / plan.intervalMs) + 1);
    for (; sent < due; sent++) {
      const sendAt = now();
      maxLagMs = Math.max(maxLagMs, sendAt - (start + sent * plan.intervalMs));
      writeLine(assistantLine(`relay-bench ${plan.tag} ${sent} ${sendAt.toFixed(3)}`));
    }
    if (sent < plan.lines) setTimeout(tick, Math.max(1, start + sent * plan.intervalMs - now()));
    else onDone({ sent, maxLagMs, elapsedMs: now() - start });
  };
  tick();
}

function runTurn(line: string, onDone: () => void): void {
  const plan = readPlan(line);
  writeLine(initLine());
  sendLines(plan, ({ sent, maxLagMs, elapsedMs }) => {
    const summary = `relay-bench ${plan.tag} done sent=${sent} maxLagMs=${maxLagMs.toFixed(3)}`;
    writeLine(resultLine(summary, elapsedMs));
    onDone();
  });
}

// Like the CLI with stream-json input (§7): one turn per user message, in order, the process waiting between
// turns (Catalyst keeps it warm for the idea's next message); it exits once stdin has ended and no turn runs.
const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
const waiting: string[] = [];
let isTurnRunning = false;
let isInputEnded = false;
const next = (): void => {
  const line = waiting.shift();
  if (line === undefined) {
    isTurnRunning = false;
    if (isInputEnded) process.exit(0);
    return;
  }
  isTurnRunning = true;
  runTurn(line, next);
};
input.on('line', (line) => {
  // Only user messages start turns; an interrupt or anything else is ignored.
  if (line.trim() === '' || field(parseJson(line), 'type') !== 'user') return;
  waiting.push(line);
  if (!isTurnRunning) next();
});
input.on('close', () => {
  isInputEnded = true;
  if (!isTurnRunning) process.exit(0);
});
