import { randomBytes } from 'node:crypto';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { DEFAULT_MAX_RUN_MS, renderRunTagLine, renderRunWrapper } from '../core/run-wrapper.ts';
import type { RunLimits, RunHandle, RunOutcome, RunSpec, StartFailureCode } from './host.ts';
import type { OpenRawChannel } from './raw-channel.ts';
import { createRunHandle, type ResolvedRunLimits } from './run-handle.ts';

/**
 * The run logic both adapters share: render the wrapper (run-wrapper.ts), open a channel running it, and turn
 * the channel into a RunHandle (run-handle.ts). The adapter only supplies `open` (child_process locally, an ssh2
 * exec channel remotely) and, for cancel's fallback, a way to run the kill script on another channel.
 */

export const DEFAULT_LEASE_MS = 30_000;
/** claude needs time to exit cleanly on TERM (claude-cli-protocol.md §9: up to ~1.8 s while a tool runs). */
export const DEFAULT_GRACE_MS = 5_000;
/** A run's own backstop when its spec sets none: the same maximum run time as the configuration's default. */
export const DEFAULT_MAX_RUNTIME_MS = DEFAULT_MAX_RUN_MS;
/**
 * The sweep (renderSweepScript) stops a run whose heartbeat is this old: far past any lease, so only a run whose
 * watchdog is gone (a SIGKILLed wrapper) or stuck is touched, never a live run of another Catalyst.
 */
export const SWEEP_STALE_MS = 10 * 60_000;

export interface WrappedRunOptions {
  /**
   * Stops the run from outside its channel (the adapter runs renderKillScript on any connection). cancel() uses
   * it when the run's own channel can no longer carry the `c` line, or when the run has not ended in time.
   */
  killRun?: (runTag: string) => Promise<void>;
  /** A fixed tag (tests); otherwise a random one. */
  tag?: string;
  /** The shell that runs the wrapper's watchdog: the one `open` runs the script with. Default `/bin/sh`. */
  shell?: string;
}

/** 128 random bits as 32 hex digits: unguessable, and inside RUN_TAG_PATTERN. */
export function createRunTag(): string {
  return randomBytes(16).toString('hex');
}

function checkLimit(value: number | undefined, fallback: number, what: string): number {
  const resolved = value ?? fallback;
  if (!Number.isFinite(resolved) || resolved < 0 || (what !== 'graceMs' && resolved === 0)) {
    throw new CatalystError('INVALID_ARGUMENT', `limits.${what} must be a positive number of milliseconds`);
  }
  return resolved;
}

export function resolveRunLimits(limits: RunLimits = {}): ResolvedRunLimits {
  return {
    leaseMs: checkLimit(limits.leaseMs, DEFAULT_LEASE_MS, 'leaseMs'),
    graceMs: checkLimit(limits.graceMs, DEFAULT_GRACE_MS, 'graceMs'),
    maxRuntimeMs: checkLimit(limits.maxRuntimeMs, DEFAULT_MAX_RUNTIME_MS, 'maxRuntimeMs'),
  };
}

const START_FAILURE_CODES: readonly StartFailureCode[] = [
  'CLI_NOT_FOUND',
  'CWD_NOT_FOUND',
  'WRAPPER_UNSUPPORTED',
  'RUN_START_FAILED',
  'SSH_CONNECT_FAILED',
  'HOST_DISK_FULL',
];

/** A failed start as a run's outcome: the error's own code when it is a start failure's, else `fallback`. */
export function startFailureOf(error: unknown, fallback: StartFailureCode = 'RUN_START_FAILED'): RunOutcome {
  const code = isCatalystError(error)
    ? START_FAILURE_CODES.find((candidate) => candidate === error.code)
    : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'start_failed', code: code ?? fallback, message };
}

function createFailedRun(runTag: string, outcome: RunOutcome): RunHandle {
  const empty: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
  };
  return {
    runTag,
    stdout: empty,
    stderr: empty,
    writeLine: () => Promise.reject(new CatalystError('RUN_INPUT_CLOSED', 'the run never started')),
    endInput: () => Promise.resolve(),
    interrupt: () => undefined,
    cancel: () => undefined,
    abandon: () => undefined,
    outcome: Promise.resolve(outcome),
  };
}

/**
 * Starts `spec` under the run wrapper. Rejects only for a spec that cannot be rendered (INVALID_ARGUMENT,
 * UNSAFE_ARGUMENT, COMMAND_TOO_LONG); a channel that fails to open resolves to a handle whose outcome is
 * `start_failed`, like every other failed start.
 */
export async function startWrappedRun(
  open: OpenRawChannel,
  spec: RunSpec,
  options: WrappedRunOptions = {},
): Promise<RunHandle> {
  const runTag = options.tag ?? createRunTag();
  const limits = resolveRunLimits(spec.limits);
  const tagLine = renderRunTagLine(runTag);
  const call = renderRunWrapper({
    argv: spec.argv,
    cwd: spec.cwd,
    ...(spec.env === undefined ? {} : { env: spec.env }),
    leaseSeconds: limits.leaseMs / 1000,
    graceSeconds: limits.graceMs / 1000,
    maxRuntimeSeconds: limits.maxRuntimeMs / 1000,
    ...(options.shell === undefined ? {} : { shell: options.shell }),
  });
  let channel;
  try {
    channel = await open(call);
  } catch (error) {
    return createFailedRun(runTag, startFailureOf(error));
  }
  // The wrapper reads its tag before anything else (run-wrapper.ts); a failed write shows as the channel's end.
  channel.stdin.on('error', () => undefined);
  channel.stdin.write(tagLine);
  return createRunHandle({
    channel,
    runTag,
    spec,
    limits,
    ...(options.killRun ? { killRun: options.killRun } : {}),
  });
}
