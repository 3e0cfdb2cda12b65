import { createUserMessage, type CommandResult, type ErrorCode, type StreamEvent } from '@catalyst/protocol';
import { buildClaudeCommand } from '../core/claude-command.ts';
import { parseResult } from '../core/command-result.ts';
import {
  answerControlRequest,
  answerUnreadableControlRequest,
  asideCommandOptions,
} from '../runs/core/tool-policy.ts';
import { parseStream } from '../core/stream-parser.ts';
import type { Host, RunHandle } from '../host/host.ts';

/**
 * One question aside (issue 30) on the idea's host: `claude -p --resume <the idea's session> --fork-session
 * --no-session-persistence` in its `project/`, so the fork reads the conversation so far and writes no session
 * file, the idea's own left as it was. Chat's read-only tools (runs/core/tool-policy.ts), its `can_use_tool` requests
 * answered as chat's are. The question goes in on stdin as the one stream-json user message (never on the command
 * line), stdin closes at the result. Started through host.startRun like a run: tagged, leased, stopped with
 * everything it started when cancelled. Stopped after `timeoutMs` in all, or `inactivityMs` without a line.
 */

export interface AsideRunOptions {
  host: Host;
  claudePath: string;
  cwd: string;
  env?: Readonly<Record<string, string>> | undefined;
  model: string;
  sessionId: string;
  question: string;
  /** What is left of the idea's budget: the CLI stops itself there (result/error_max_budget_usd). */
  maxBudgetUsd?: number | undefined;
  timeoutMs: number;
  inactivityMs: number;
  signal: AbortSignal;
}

export type AsideOutcome =
  | { ok: true; text: string; costUsd: number; durationMs: number }
  | { ok: false; code: ErrorCode; message: string; costUsd?: number };

/** Said before the person's question: what the fork is, so that it answers instead of going on with the work. */
export const ASIDE_PREFACE =
  'A question aside from the person, asked while your work may still be going on elsewhere. Answer it from the conversation so far and, if needed, by reading the project; you can only read and search here, change nothing. The question:';

type StopReason = 'cancelled' | 'timed_out' | 'inactive';

export async function runAside(options: AsideRunOptions): Promise<AsideOutcome> {
  const command = buildClaudeCommand({
    claudePath: options.claudePath,
    cwd: options.cwd,
    ...(options.env === undefined ? {} : { env: { ...options.env } }),
    ...asideCommandOptions(),
    model: options.model,
    resume: options.sessionId,
    forkSession: true,
    noSessionPersistence: true,
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
  });
  const startedAt = Date.now();
  const handle = await options.host.startRun({
    argv: command.argv,
    cwd: command.cwd,
    env: command.env,
    limits: { maxRuntimeMs: options.timeoutMs + 30_000 },
  });
  const watch = watchAside(handle, options);
  try {
    await handle.writeLine(JSON.stringify(createUserMessage(`${ASIDE_PREFACE}\n\n${options.question}`)));
    const { result, stderrTail } = await readAside(handle, startedAt, watch.touch);
    return outcomeOf({ result, stderrTail, stopped: watch.stopped(), options });
  } catch (error) {
    // Writing to a process that ended at once (a bad session id) fails: how it ended says more.
    const stopped = watch.stopped();
    if (stopped !== undefined) return outcomeOf({ stderrTail: '', stopped, options });
    throw error;
  } finally {
    watch.dispose();
    handle.cancel();
    await handle.outcome;
  }
}

/** The time limits and the caller's signal: each stops the process, and says why. */
function watchAside(
  handle: RunHandle,
  options: Pick<AsideRunOptions, 'timeoutMs' | 'inactivityMs' | 'signal'>,
) {
  let reason: StopReason | undefined;
  const stop = (why: StopReason) => () => {
    reason ??= why;
    handle.cancel();
  };
  const onAbort = stop('cancelled');
  const overall = setTimeout(stop('timed_out'), options.timeoutMs);
  let quiet = setTimeout(stop('inactive'), options.inactivityMs);
  options.signal.addEventListener('abort', onAbort, { once: true });
  // A listener added to an already aborted signal never fires.
  if (options.signal.aborted) onAbort();
  return {
    touch: () => {
      clearTimeout(quiet);
      quiet = setTimeout(stop('inactive'), options.inactivityMs);
    },
    stopped: () => reason,
    dispose: () => {
      clearTimeout(overall);
      clearTimeout(quiet);
      options.signal.removeEventListener('abort', onAbort);
    },
  };
}

async function readAside(
  handle: RunHandle,
  startedAt: number,
  touch: () => void,
): Promise<{ result: CommandResult | undefined; stderrTail: string }> {
  const decoder = new TextDecoder();
  let stderrTail = '';
  const drainStderr = (async () => {
    for await (const chunk of handle.stderr)
      stderrTail = (stderrTail + decoder.decode(chunk, { stream: true })).slice(-500);
  })();
  let result: CommandResult | undefined;
  for await (const event of parseStream(handle.stdout)) {
    touch();
    const answer = controlAnswerOf(event);
    if (answer !== undefined) await handle.writeLine(answer);
    const ending = resultOf(event, startedAt);
    if (ending === undefined) continue;
    result = ending;
    // One question, one turn: the CLI exits once its stdin closes (§2.3).
    await handle.endInput();
  }
  await drainStderr;
  return { result, stderrTail };
}

/** A `can_use_tool` request (a read outside the project) gets chat's answer; the CLI waits for every one. */
function controlAnswerOf(event: StreamEvent): string | undefined {
  if (event.kind !== 'message') return undefined;
  const { message } = event;
  if (message.type === 'control_request')
    return JSON.stringify(answerControlRequest(message, { mode: 'chat', isStopping: false }).response);
  if (message.type !== 'unknown') return undefined;
  const answer = answerUnreadableControlRequest(message);
  return answer === undefined ? undefined : JSON.stringify(answer.response);
}

function resultOf(event: StreamEvent, startedAt: number): CommandResult | undefined {
  if (event.kind !== 'message') return undefined;
  const { message } = event;
  if (message.type === 'result') return parseResult(message, '', startedAt);
  if (message.type === 'unknown' && message.originalType === 'result')
    return parseResult(message, '', startedAt);
  return undefined;
}

const STOPPED: Record<StopReason, { code: ErrorCode; message: (options: AsideRunOptions) => string }> = {
  cancelled: { code: 'QUESTION_CANCELLED', message: () => 'The aside was stopped before its answer came.' },
  timed_out: {
    code: 'RUN_TIMED_OUT',
    message: (o) => `No answer came within ${String(Math.round(o.timeoutMs / 1000))} s.`,
  },
  inactive: {
    code: 'RUN_TIMED_OUT',
    message: (o) => `Claude printed nothing for ${String(Math.round(o.inactivityMs / 1000))} s.`,
  },
};

function outcomeOf(ending: {
  result?: CommandResult | undefined;
  stderrTail: string;
  stopped: StopReason | undefined;
  options: AsideRunOptions;
}): AsideOutcome {
  const { result, stopped } = ending;
  const cost = result === undefined ? {} : { costUsd: result.costUsd };
  if (result?.success === true) {
    return { ok: true, text: result.result ?? '', costUsd: result.costUsd, durationMs: result.durationMs };
  }
  if (stopped !== undefined) {
    const { code, message } = STOPPED[stopped];
    return { ok: false, code, message: message(ending.options), ...cost };
  }
  if (result !== undefined)
    return { ok: false, code: 'CLI_FAILED', message: result.error ?? 'failed', ...cost };
  const said = ending.stderrTail.trim();
  return {
    ok: false,
    code: 'CLI_FAILED',
    message: `Claude ended without an answer${said === '' ? '.' : `: ${said}`}`,
  };
}
