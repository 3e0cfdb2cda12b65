import { createUserMessage } from '@catalyst/protocol';
import { buildClaudeCommand } from '../core/claude-command.ts';
import { CatalystError } from '../core/catalyst-error.ts';
import { parseStream } from '../core/stream-parser.ts';
import { answererCommandOptions } from './core/tool-policy.ts';
import type { Host, RunHandle } from '../host/host.ts';
import type { AutoAnswerSetup } from './question-auto-answer.ts';
import type { AutoAnswerOptions, RunDriverOptions } from './run-driver-options.ts';

/**
 * One `claude -p` on the idea's host for the question answerer: no tools (`--tools ''`), the user's settings only
 * and no MCP server (runs/core/tool-policy.ts), no session kept, a small model; the prompt goes in as the one
 * stream-json user message (§7.1), stdin closes, and the result's text and cost come back. Started through host.startRun like a run, so it is tagged, leased and stoppable.
 */

export interface AutoAnswerRunOptions {
  host: Host;
  claudePath: string;
  cwd: string;
  env?: Readonly<Record<string, string>> | undefined;
  model: string;
  prompt: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface AutoAnswerReply {
  text: string;
  costUsd: number;
}

export async function runAutoAnswer(options: AutoAnswerRunOptions): Promise<AutoAnswerReply> {
  const command = buildClaudeCommand({
    claudePath: options.claudePath,
    cwd: options.cwd,
    ...(options.env === undefined ? {} : { env: { ...options.env } }),
    ...answererCommandOptions(),
    model: options.model,
    noSessionPersistence: true,
  });
  const handle = await options.host.startRun({
    argv: command.argv,
    cwd: command.cwd,
    env: command.env,
    limits: { maxRuntimeMs: options.timeoutMs + 30_000 },
  });
  const stop = () => {
    handle.cancel();
  };
  const timer = setTimeout(stop, options.timeoutMs);
  options.signal?.addEventListener('abort', stop, { once: true });
  // A listener added to an already aborted signal never fires: a cancel during startRun stops it here.
  if (options.signal?.aborted === true) stop();
  try {
    await handle.writeLine(JSON.stringify(createUserMessage(options.prompt)));
    await handle.endInput();
    return await readReply(handle, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    handle.cancel();
    await handle.outcome;
  }
}

async function readReply(handle: RunHandle, timeoutMs: number): Promise<AutoAnswerReply> {
  const decoder = new TextDecoder();
  let stderr = '';
  const drainStderr = (async () => {
    for await (const chunk of handle.stderr)
      stderr = (stderr + decoder.decode(chunk, { stream: true })).slice(-500);
  })();
  let reply: AutoAnswerReply | undefined;
  let failure: string | undefined;
  for await (const event of parseStream(handle.stdout)) {
    if (event.kind !== 'message' || event.message.type !== 'result') continue;
    const result = event.message;
    if (result.subtype === 'success' && !result.is_error) {
      reply = { text: result.result, costUsd: result.total_cost_usd };
    } else failure = `the answering model's run ended with ${result.subtype}`;
  }
  await drainStderr;
  if (reply !== undefined) return reply;
  throw new CatalystError(
    'AUTO_ANSWER_FAILED',
    failure ?? `the answering model gave no answer within ${Math.round(timeoutMs / 1000)} s`,
    { details: { stderrTail: stderr } },
  );
}

/** How a run's question answerer reaches the small model (runAutoAnswer, on the run's host and in its project). */
export function autoAnswerSetup(
  run: Pick<RunDriverOptions, 'host' | 'claudePath' | 'cwd' | 'env' | 'logger' | 'ideaId' | 'runId'>,
  auto: AutoAnswerOptions,
  fail: (message: string) => void,
): AutoAnswerSetup {
  const { host, claudePath, cwd, env, logger, ideaId, runId } = run;
  return {
    ...auto,
    reply: (prompt, signal) =>
      runAutoAnswer({
        host,
        claudePath,
        cwd,
        env,
        model: auto.model,
        prompt,
        timeoutMs: auto.timeoutMs,
        signal,
      }),
    fail,
    warn: (message) => {
      logger.warn({ ideaId, runId }, message);
    },
  };
}
