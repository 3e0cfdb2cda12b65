import { CatalystError } from './catalyst-error.ts';
import { renderEnvAssignments } from './claude-command.ts';
import { RUN_TAG_ENV, assertRunTag } from './run-wrapper.ts';
import { createShellCall, type ShellCall } from './shell-quote.ts';
import { VM_SCRIPTS } from './vm-scripts.generated.ts';

/**
 * A session that lives on the VM (issue 11): the claude process runs detached from every SSH channel, under a
 * supervisor S in a session of its own, with stdin a FIFO that S holds open (so claude never sees EOF until S lets
 * go) and stdout/stderr appended to files. Catalyst attaches over any channel: the attach script A follows the
 * output from a byte offset and passes input lines into the FIFO; closing A's channel stops nothing.
 *
 * The scripts are packages/backend/vm/session-*.sh (start, supervisor, attach, stop, list, remove), built on the
 * run wrapper's stop by tag (vm/lib/stop.sh) and vm/lib/session.sh; what lives where, and why, is written there.
 * This module renders their arguments. The session id travels on stdin (renderJobIdLine), never in argv.
 */

export interface JobLimits {
  /** Idle with a backend attached: stdin is closed after this long without a turn. */
  warmIdleSeconds: number;
  /** Idle and no heartbeat for this long (the backend is gone): stdin is closed. */
  leaseSeconds: number;
  /** A turn running and no heartbeat for this long: the session is stopped. */
  detachedSeconds: number;
  maxLifetimeSeconds: number;
  graceSeconds: number;
}

export interface JobStartOptions {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  limits: JobLimits;
}

function seconds(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new CatalystError('INVALID_ARGUMENT', `${what} must be a number of seconds >= 0, got ${value}`);
  }
  return Math.ceil(value);
}

/** The grace period in 0.1 s polls (`cr_polls`, vm/lib/stop.sh's cr_stop). */
function polls(graceSeconds: number): string {
  return String(Math.round(seconds(graceSeconds, 'graceSeconds') * 10));
}

/**
 * S's arguments (session-supervisor.sh): `<warm idle s> <lease s> <detached s> <max lifetime s> <grace polls> <cwd>
 * <number of env entries> <NAME=value>… <job argv>…`.
 */
function renderSupervisorArgs(options: JobStartOptions): string[] {
  if (options.argv.length === 0) {
    throw new CatalystError('INVALID_ARGUMENT', 'the session needs a non-empty argv');
  }
  const env = options.env ?? {};
  if (RUN_TAG_ENV in env) {
    throw new CatalystError('INVALID_ARGUMENT', `${RUN_TAG_ENV} is set by the session, not by its spec`);
  }
  const { limits } = options;
  const entries = renderEnvAssignments(env);
  return [
    String(seconds(limits.warmIdleSeconds, 'warmIdleSeconds')),
    String(seconds(limits.leaseSeconds, 'leaseSeconds')),
    String(seconds(limits.detachedSeconds, 'detachedSeconds')),
    String(seconds(limits.maxLifetimeSeconds, 'maxLifetimeSeconds')),
    polls(limits.graceSeconds),
    options.cwd,
    String(entries.length),
    ...entries,
    ...options.argv,
  ];
}

/**
 * Creates the session dir and starts S detached, with `shell` (session-start.sh). Prints `@@catalyst-attach started`
 * once S has started the job; exit 3 when the session dir exists already, 6 when its disk is full.
 */
export function renderJobStart(options: JobStartOptions, shell = '/bin/sh'): ShellCall {
  if (!options.cwd.startsWith('/')) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `cwd must be an absolute path, got ${JSON.stringify(options.cwd)}`,
    );
  }
  return createShellCall(VM_SCRIPTS['session-start'], 'catalyst-session', [
    shell,
    VM_SCRIPTS['session-supervisor'],
    ...renderSupervisorArgs(options),
  ]);
}

/**
 * A: attaches to a session, following `out` from byte `stdoutOffset` and `err` from `stderrOffset`, and passing
 * stdin lines on (session-attach.sh). Refuses with exit 4 while another A holds the lock and its Catalyst is heard
 * from (`heartbeat` younger than `staleSeconds`, at least 2); exit 3 when there is no such session. With
 * `awaitStart`, it first waits up to 40 s for the session to be started (issue 25, item 4). When the session ends,
 * A ends with `@@catalyst-session-end code=… reason=…` on stderr.
 */
export function renderAttach(
  offsets: { stdout: number; stderr: number },
  staleSeconds: number,
  options: { awaitStart?: boolean } = {},
): ShellCall {
  const from = (offset: number) => {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new CatalystError('INVALID_ARGUMENT', `an offset must be a whole number >= 0, got ${offset}`);
    }
    return String(offset + 1);
  };
  return createShellCall(VM_SCRIPTS['session-attach'], 'catalyst-attach', [
    from(offsets.stdout),
    from(offsets.stderr),
    String(Math.max(2, seconds(staleSeconds, 'staleSeconds'))),
    options.awaitStart === true ? '1' : '0',
  ]);
}

/** Out of band: stops a session (claims `cancel`), from any channel; S then writes its status (session-stop.sh). */
export function renderJobStop(graceSeconds: number): ShellCall {
  return createShellCall(VM_SCRIPTS['session-stop'], 'catalyst-session-stop', [polls(graceSeconds)]);
}

/**
 * Every session of this user, one line each: `<id> <alive 0|1> <out bytes> <err bytes> <held> <status or ->`
 * (session-list.sh).
 */
export const LIST_JOBS = createShellCall(VM_SCRIPTS['session-list'], 'catalyst-session-list');

/** Removes a session's files once S is gone (exit 5 while it lives: stop it first; session-remove.sh). */
export const REMOVE_JOB = createShellCall(VM_SCRIPTS['session-remove'], 'catalyst-session-remove');

export function renderJobIdLine(sessionId: string): string {
  assertRunTag(sessionId);
  return `${sessionId}\n`;
}
