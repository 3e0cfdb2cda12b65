import { CatalystError } from './catalyst-error.ts';
import { renderEnvAssignments } from './claude-command.ts';
import { createShellCall, type ShellCall } from './shell-quote.ts';
import { isMarkerShape, parseMarkerLine, VM_MARKERS } from './vm-markers.ts';
import { VM_SCRIPTS } from './vm-scripts.generated.ts';

/**
 * The run wrapper W and what stops runs from outside it: the scripts packages/backend/vm/run-wrapper.sh (with its
 * watchdog, run-watchdog.sh), run-kill.sh and run-sweep.sh, and their arguments. The layout and the reasons are in
 * those files. The run tag is in no argument: W and the kill script read it as the first line of their stdin
 * (renderRunTagLine), and W hands it to the watchdog in its environment. A command line is visible to every user of
 * the host in `ps`; an environment only to its owner (issue 16, item 2).
 */

export const RUN_TAG_ENV = 'CATALYST_RUN_TAG';
export const RUN_TAG_PATTERN = /^[a-z0-9-]{8,64}$/;
export const CLI_NOT_FOUND_EXIT_CODE = 127;
/**
 * The longest a run may last unless configured otherwise: the one definition, also CATALYST_MAX_RUN_MS's default
 * (server/config.ts), a turn's (runs/core/run-commands.ts) and the wrapper's backstop (host/wrapped-run.ts).
 */
export const DEFAULT_MAX_RUN_MS = 6 * 3_600_000;

export function assertRunTag(tag: string): void {
  if (!RUN_TAG_PATTERN.test(tag)) {
    throw new CatalystError('INVALID_ARGUMENT', `invalid run tag ${JSON.stringify(tag)}`, {
      details: { pattern: RUN_TAG_PATTERN.source },
    });
  }
}

export interface RunWrapperOptions {
  /** The job; argv[0] is looked up with `command -v` after the env is exported (so env PATH counts). */
  argv: readonly string[];
  cwd: string;
  /** Not for secrets: the script ends up in `sh -c`'s argv (see RunSpec.env). */
  env?: Readonly<Record<string, string>>;
  leaseSeconds: number;
  graceSeconds: number;
  maxRuntimeSeconds: number;
  /** The shell that runs the watchdog; the one that runs the script itself. Default `/bin/sh`. */
  shell?: string;
  /**
   * Tests only (fault injection): the job waits this long before it opens its FIFO, long after the watchdog has
   * read an `e`. Default 0, as every run has it.
   */
  testDelayFifoOpenSeconds?: number;
}

function assertSeconds(value: number, what: string, minimum: number): void {
  if (!Number.isFinite(value) || value < minimum) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `${what} must be a number of seconds >= ${minimum}, got ${value}`,
    );
  }
}

/** The grace period in 0.1 s polls (`cr_polls`, lib/stop.sh's cr_stop). */
function renderPolls(graceSeconds: number): string {
  assertSeconds(graceSeconds, 'graceSeconds', 0);
  return String(Math.round(graceSeconds * 10));
}

/** What the wrapper and the kill script read first on their stdin: the run tag, as one line. */
export function renderRunTagLine(tag: string): string {
  assertRunTag(tag);
  return `${tag}\n`;
}

/**
 * W's call: `<grace polls> <lease s> <max runtime s> <cwd> <watchdog's shell> <watchdog script> <FIFO open delay s>
 * <number of env entries> <NAME=value>… <job argv>…` (run-wrapper.sh). For `/bin/sh -c` locally or
 * `wrapForAnyLoginShell` over SSH.
 */
export function renderRunWrapper(options: RunWrapperOptions): ShellCall {
  if (!options.cwd.startsWith('/')) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `cwd must be an absolute path, got ${JSON.stringify(options.cwd)}`,
    );
  }
  if (options.argv.length === 0) {
    throw new CatalystError('INVALID_ARGUMENT', 'the run needs a non-empty argv');
  }
  const env = options.env ?? {};
  if (RUN_TAG_ENV in env) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `${RUN_TAG_ENV} is set by the run wrapper, not by the run spec`,
    );
  }
  assertSeconds(options.leaseSeconds, 'leaseSeconds', 1);
  assertSeconds(options.maxRuntimeSeconds, 'maxRuntimeSeconds', 1);
  const delay = options.testDelayFifoOpenSeconds ?? 0;
  assertSeconds(delay, 'testDelayFifoOpenSeconds', 0);
  const entries = renderEnvAssignments(env);
  return createShellCall(VM_SCRIPTS['run-wrapper'], 'catalyst-run', [
    renderPolls(options.graceSeconds),
    String(Math.ceil(options.leaseSeconds)),
    String(Math.ceil(options.maxRuntimeSeconds)),
    options.cwd,
    options.shell ?? '/bin/sh',
    VM_SCRIPTS['run-watchdog'],
    String(delay),
    String(entries.length),
    ...entries,
    ...options.argv,
  ]);
}

export interface KillScriptOptions {
  graceSeconds: number;
}

/**
 * Stops a run from any connection (after a reconnect or a backend restart), with `cancel` as the reason
 * (run-kill.sh). The tag comes as the first line of stdin (renderRunTagLine). Prints
 * `@@catalyst-kill tag=<TAG> remaining=<N>`.
 */
export function renderKillScript(options: KillScriptOptions): ShellCall {
  return createShellCall(VM_SCRIPTS['run-kill'], 'catalyst-kill', [renderPolls(options.graceSeconds)]);
}

export interface SweepScriptOptions {
  /** A run whose last heartbeat is at least this old is stopped (make it longer than any lease). */
  staleSeconds: number;
  graceSeconds: number;
}

/**
 * Stops every run of this user whose heartbeat is stale (its watchdog is gone or stuck), with `lease` as the reason
 * (run-sweep.sh). Prints `@@catalyst-sweep stopped tag=<TAG>` per run.
 */
export function renderSweepScript(options: SweepScriptOptions): ShellCall {
  assertSeconds(options.staleSeconds, 'staleSeconds', 1);
  return createShellCall(VM_SCRIPTS['run-sweep'], 'catalyst-sweep', [
    renderPolls(options.graceSeconds),
    String(Math.ceil(options.staleSeconds)),
  ]);
}

/** The tags a sweep script reports as stopped (`@@catalyst-sweep stopped tag=<tag>` lines), from its stdout. */
export function parseSweepOutput(stdout: string): string[] {
  return stdout.split('\n').flatMap((line) => {
    const marker = parseMarkerLine(line);
    const tag = marker?.fields.get('tag') ?? '';
    const isStopped = isMarkerShape(marker, VM_MARKERS.sweep, { words: ['stopped'], keys: ['tag'] });
    return isStopped && RUN_TAG_PATTERN.test(tag) ? [tag] : [];
  });
}
