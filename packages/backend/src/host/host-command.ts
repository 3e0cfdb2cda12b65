import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { Host, RunHandle, RunOutcome } from './host.ts';

/**
 * A short command on a host that Catalyst runs for itself (a checkpoint's git), through the run wrapper like a run
 * but on a control channel (Host.startCommand): tagged, leased, and stopped with everything it started when it
 * takes too long. Its stdout is kept up to
 * `maxStdoutBytes` (more is read and dropped, `isCut`), its stderr's tail for errors.
 */

export interface HostCommand {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  /** Lines for its stdin, each a JSON object (RunHandle.writeLine), before stdin is closed: what no `ps` may show. */
  input?: readonly string[];
  timeoutMs: number;
  maxStdoutBytes: number;
}

export interface HostCommandResult {
  stdout: Buffer;
  isCut: boolean;
  stderrTail: string;
  outcome: RunOutcome;
}

const STDERR_TAIL_CHARS = 2_000;

export async function runHostCommand(host: Host, command: HostCommand): Promise<HostCommandResult> {
  const handle = await host.startCommand({
    argv: command.argv,
    cwd: command.cwd,
    ...(command.env === undefined ? {} : { env: command.env }),
    limits: { maxRuntimeMs: command.timeoutMs + 5_000, graceMs: 1_000 },
  });
  const timer = setTimeout(() => {
    handle.cancel();
  }, command.timeoutMs);
  try {
    const chunks: Buffer[] = [];
    let kept = 0;
    let isCut = false;
    const readStdout = (async () => {
      for await (const chunk of handle.stdout) {
        const room = command.maxStdoutBytes - kept;
        if (chunk.length > room) isCut = true;
        if (room <= 0) continue;
        const part = Buffer.from(chunk.subarray(0, room));
        chunks.push(part);
        kept += part.length;
      }
    })();
    const decoder = new TextDecoder();
    let stderrTail = '';
    const readStderr = (async () => {
      for await (const chunk of handle.stderr) {
        stderrTail = (stderrTail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_CHARS);
      }
    })();
    const written = writeInput(handle, command.input ?? []).catch((error: unknown) => {
      handle.cancel();
      throw error;
    });
    await Promise.all([readStdout, readStderr, written]);
    return { stdout: Buffer.concat(chunks), isCut, stderrTail, outcome: await handle.outcome };
  } finally {
    clearTimeout(timer);
  }
}

/** A run that ended before taking its input (one that never started) says so in its outcome, not here. */
async function writeInput(handle: RunHandle, lines: readonly string[]): Promise<void> {
  try {
    for (const line of lines) await handle.writeLine(line);
  } catch (error) {
    if (!isCatalystError(error) || error.code !== 'RUN_INPUT_CLOSED') throw error;
  }
  await handle.endInput();
}

/** A command that did not exit 0, as an error naming `what` (its stderr's tail in the details). */
export function commandFailure(
  what: string,
  result: HostCommandResult,
  code: 'CHECKPOINT_FAILED' | 'FILE_ERROR',
): CatalystError {
  const { outcome } = result;
  const how =
    outcome.kind === 'exited'
      ? outcome.signal === null
        ? `exited with code ${String(outcome.code)}`
        : `was stopped by ${outcome.signal}`
      : outcome.kind === 'start_failed' || outcome.kind === 'connection_lost'
        ? `could not run: ${outcome.message}`
        : `ended: ${outcome.kind}`;
  const lastLine = result.stderrTail.trim().split('\n').at(-1) ?? '';
  return new CatalystError(code, `${what} ${how}${lastLine === '' ? '' : ` (${lastLine})`}`, {
    details: { stderrTail: result.stderrTail },
  });
}
