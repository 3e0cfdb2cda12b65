import { CatalystError } from './catalyst-error.ts';
import { CWD_NOT_FOUND_EXIT_CODE, renderEnvExports } from './claude-command.ts';
import { END_MARKER, START_MARKER } from './run-markers.ts';
import {
  MAKE_RUN_DIR,
  READ_UID,
  RUN_ROOT_WORDS,
  STOP_FUNCTIONS,
  STOP_RUN_FROM_OUTSIDE,
  WATCHDOG_BODY,
} from './run-wrapper-shell.ts';
import { quoteShellArg, renderShellCommand } from './shell-quote.ts';

/**
 * Renders the run wrapper W (ssh-field-notes.md §3b, adapted): a POSIX sh script that starts the job so that
 * nothing it starts outlives the run, whatever happens to the backend or the connection. The layout:
 *   - W prints the start marker on stdout and stderr, cd's, makes a private run dir with a FIFO, and starts
 *   - J, the job, in its own session (`setsid`) with CATALYST_RUN_TAG in its environment, stdin = the FIFO, and
 *   - D, the watchdog (run-wrapper-shell.ts), in another session, stdin = the channel's stdin, output to /dev/null.
 * W waits for J, then reaps whatever J left behind (TERM, grace, KILL to the tag and J's group), ends D, removes
 * the run dir, prints the trailer on stderr and exits with J's status. J in a session of its own means a stop
 * never signals W, so the trailer and the exit status always come out (the notes' W got the group's KILL).
 * The trailer starts with a `\n` of its own, so it is a line of its own even after stderr that lacks a final
 * newline; the reader (run-markers.ts) removes that `\n` with it.
 * The run tag is in no script: W reads it as the first line of its stdin (renderRunTagLine), the kill script reads
 * it from its stdin, and W hands it to D in D's environment. A command line is visible to every user of the host
 * in `ps`; an environment only to its owner (issue 16, item 2).
 */

export const RUN_TAG_ENV = 'CATALYST_RUN_TAG';
export const RUN_TAG_PATTERN = /^[a-z0-9-]{8,64}$/;
export const CLI_NOT_FOUND_EXIT_CODE = 127;

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
}

function assertSeconds(value: number, what: string, minimum: number): void {
  if (!Number.isFinite(value) || value < minimum) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `${what} must be a number of seconds >= ${minimum}, got ${value}`,
    );
  }
}

/** The values every script reads; `cr_polls` is the grace period in 0.1 s polls; `cr_uid` see READ_UID. */
function renderSettings(graceSeconds: number): string {
  assertSeconds(graceSeconds, 'graceSeconds', 0);
  return `cr_polls=${Math.round(graceSeconds * 10)} cr_uid=`;
}

/** What the wrapper and the kill script read first on their stdin: the run tag, as one line. */
export function renderRunTagLine(tag: string): string {
  assertRunTag(tag);
  return `${tag}\n`;
}

/** Sets `cr_tag` from the first line of stdin, or ends the script with `$1` on stderr and exit status 2. */
function renderReadTag(what: string): string {
  return [
    'cr_tag=',
    'IFS= read -r cr_tag',
    `cr_is_tag "$cr_tag" || { printf '%s: no valid run tag on stdin\\n' ${quoteShellArg(what)} >&2; exit 2; }`,
  ].join('\n');
}

function renderWatchdogScript(options: RunWrapperOptions): string {
  assertSeconds(options.leaseSeconds, 'leaseSeconds', 1);
  assertSeconds(options.maxRuntimeSeconds, 'maxRuntimeSeconds', 1);
  const limits = `cr_lease=${Math.ceil(options.leaseSeconds)} cr_maxt=${Math.ceil(options.maxRuntimeSeconds)}`;
  return [renderSettings(options.graceSeconds), limits, STOP_FUNCTIONS, WATCHDOG_BODY].join('\n');
}

/**
 * The job's subshell: env, then the binary check (with the env's PATH), then the tag, then exec. `exec setsid`
 * does not fork here (the trap of ssh-field-notes.md §3a needs a group leader, and a background subshell is not
 * one), so `$!` is the job itself and W's `wait` gets its real status. Only this subshell exports the tag: W and
 * D never carry it, so a stop never matches them.
 * A background job of a non-interactive sh starts with SIGINT and SIGQUIT ignored (POSIX, asynchronous lists
 * without job control), an ignore that dash lets neither `trap` nor `exec` undo, so the watchdog's `i` would be
 * lost on a job that does not catch SIGINT itself. `env --default-signal` (GNU coreutils 8.31+) restores the
 * defaults across the exec; where it is missing the job keeps the ignore, which the claude CLI does not mind: it
 * installs its own SIGINT handler. The probe (renderSignalProbe) is W's child, started before the job and never
 * tagged; its answer arrives as `cr_dfl`.
 */
function renderJobLines(options: RunWrapperOptions): string[] {
  const [binary] = options.argv;
  if (binary === undefined) throw new CatalystError('INVALID_ARGUMENT', 'the run needs a non-empty argv');
  const env = options.env ?? {};
  if (RUN_TAG_ENV in env) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `${RUN_TAG_ENV} is set by the run wrapper, not by the run spec`,
    );
  }
  return [
    '(',
    `  printf '' >"$cr_run/opened"`,
    ...renderEnvExports(env).map((line) => `  ${line}`),
    `  command -v ${quoteShellArg(binary)} >/dev/null 2>&1 || { printf '' >"$cr_run/not-found"; exit ${CLI_NOT_FOUND_EXIT_CODE}; }`,
    '  set --',
    '  [ -z "$cr_dfl" ] || set -- env --default-signal=INT,QUIT',
    `  export ${RUN_TAG_ENV}="$cr_tag"`,
    `  exec "$@" setsid ${renderShellCommand(options.argv)}`,
    ') <"$cr_run/stdin" 3<&- &',
  ];
}

/**
 * A writer on the job's FIFO for D to inherit as fd 4, opened without waiting for anyone: a read-write open of a
 * FIFO never blocks (Linux), and with it open neither does the write-only one; fd 5 is closed at once. So the job's
 * read-only open completes as soon as the job gets to it, not when D has started and opened its own writer.
 */
const FIFO_WRITER = `command exec 5<>"$cr_run/stdin" 4>"$cr_run/stdin" 5<&- || {
  kill -KILL "$cr_job" 2>/dev/null
  cr_fail_setup "opening the FIFO failed"
}`;

/**
 * Whether the job's `env` has `--default-signal` (see renderJobLines): asked in the background as soon as the cwd
 * is known, so it runs alongside the run dir's set-up instead of in front of the job's exec, and W collects the
 * answer (`wait`) just before it starts the job. With the env's PATH, if it has one (that is what picks `env`), and
 * never tagged. `--version` after the option: one exec, no command to run.
 */
function renderSignalProbe(env: Readonly<Record<string, string>>): string {
  const path = env['PATH'] === undefined ? [] : renderEnvExports({ PATH: env['PATH'] });
  return `(${[...path, 'exec env --default-signal=INT --version'].join('; ')}) </dev/null >/dev/null 2>&1 3<&- &`;
}

const WRAPPER_FUNCTIONS = `
cr_finish() {
  printf '\\n${END_MARKER} reason=%s code=%s\\n' "$1" "$2" >&2
  exit "$2"
}
cr_fail_setup() {
  printf 'catalyst-run: %s\\n' "$1" >&2
  [ -z "$cr_run" ] || rm -rf "$cr_run"
  cr_finish setup 1
}
`;

// After J: the reason is whoever claimed it first (a stopper, or W's own `exit`); then reap, end D, clean up.
const WRAPPER_EPILOGUE = `
wait "$cr_job" 2>/dev/null
cr_rc=$?
if [ -e "$cr_run/not-found" ]; then
  cr_reason=not_found
elif cr_claim exit; then
  cr_reason=exit
else
  cr_reason=$(cat "$cr_run/reason" 2>/dev/null)
fi
cr_stop '' "$cr_job"
kill -TERM "$cr_wd" "-$cr_wd" 2>/dev/null
wait "$cr_wd" 2>/dev/null
rm -rf "$cr_run"
cr_finish "\${cr_reason:-exit}" "$cr_rc"
`;

/** The whole wrapper script, for `/bin/sh -c` locally or `wrapForAnyLoginShell` over SSH. */
export function renderRunWrapper(options: RunWrapperOptions): string {
  const shell = options.shell ?? '/bin/sh';
  if (!options.cwd.startsWith('/')) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `cwd must be an absolute path, got ${JSON.stringify(options.cwd)}`,
    );
  }
  const marker = `printf '${START_MARKER} tag=%s pid=%s\\n' "$cr_tag" "$$"`;
  const watchdog = quoteShellArg(renderWatchdogScript(options));
  return [
    renderSettings(options.graceSeconds),
    'cr_run=',
    STOP_FUNCTIONS,
    renderReadTag('catalyst-run'),
    marker,
    `${marker} >&2`,
    'exec 3<&0 </dev/null',
    MAKE_RUN_DIR,
    WRAPPER_FUNCTIONS,
    `cd ${quoteShellArg(options.cwd)} || cr_finish cwd ${CWD_NOT_FOUND_EXIT_CODE}`,
    renderSignalProbe(options.env ?? {}),
    'cr_probe=$!',
    READ_UID,
    'cr_make_run || cr_fail_setup "no private run directory under $TMPDIR, /tmp or $HOME"',
    'command -v setsid >/dev/null 2>&1 || cr_fail_setup "setsid is missing"',
    'mkfifo -m 600 "$cr_run/stdin" || cr_fail_setup "mkfifo failed"',
    'cr_dfl=',
    'wait "$cr_probe" && cr_dfl=1',
    `printf '%s\\n' "$$" >"$cr_run/wrapper"`,
    ...renderJobLines(options),
    'cr_job=$!',
    FIFO_WRITER,
    `printf '%s\\n' "$cr_job" >"$cr_run/job"`,
    `cr_tag=$cr_tag cr_run=$cr_run cr_job=$cr_job cr_wrapper=$$ setsid ${quoteShellArg(shell)} -c ${watchdog} catalyst-watchdog <&3 3<&- >/dev/null 2>&1 &`,
    'cr_wd=$!',
    'exec 3<&- 4>&-',
    `printf '%s\\n' "$cr_wd" >"$cr_run/watchdog"`,
    WRAPPER_EPILOGUE,
  ].join('\n');
}

export interface KillScriptOptions {
  graceSeconds: number;
}

/**
 * Stops a run from any connection (after a reconnect or a backend restart): the same stop as the watchdog, with
 * `cancel` as the reason. The tag comes as the first line of stdin (renderRunTagLine). Only a run dir of ours, in a
 * root of ours, is read or written; without one the tagged processes are still stopped (only our own processes
 * show us their environment). Prints `@@catalyst-kill tag=<TAG> remaining=<N>`; N is 0 unless a process survived
 * KILL (one in uninterruptible sleep).
 */
export function renderKillScript(options: KillScriptOptions): string {
  return [
    renderSettings(options.graceSeconds),
    STOP_FUNCTIONS,
    STOP_RUN_FROM_OUTSIDE,
    renderReadTag('catalyst-kill'),
    'cr_run=',
    `for cr_root in ${RUN_ROOT_WORDS}; do`,
    '  cr_own_root "$cr_root" || continue',
    '  if cr_own_dir "$cr_root/$cr_tag"; then cr_run=$cr_root/$cr_tag; break; fi',
    'done',
    'cr_stop_run cancel',
    // KILL is asynchronous: give the kernel a moment before counting survivors.
    'cr_i=0',
    'while [ "$cr_i" -lt 10 ] && [ -n "$(cr_tagged)" ]; do sleep 0.1; cr_i=$((cr_i + 1)); done',
    `printf '@@catalyst-kill tag=%s remaining=%s\\n' "$cr_tag" "$(cr_tagged | wc -l)"`,
  ].join('\n');
}

export interface SweepScriptOptions {
  /** A run whose last heartbeat is at least this old is stopped (make it longer than any lease). */
  staleSeconds: number;
  graceSeconds: number;
}

/**
 * Stops every run of this user whose heartbeat file is stale (its watchdog is gone or stuck), with `lease` as the
 * reason, and removes run dirs no wrapper owns any more: those of a wrapper that was SIGKILLed. Only roots and run
 * dirs of ours are looked at (cr_own_root, cr_own_dir). Prints `@@catalyst-sweep stopped tag=<TAG>` per run.
 */
export function renderSweepScript(options: SweepScriptOptions): string {
  assertSeconds(options.staleSeconds, 'staleSeconds', 1);
  return [
    renderSettings(options.graceSeconds),
    STOP_FUNCTIONS,
    STOP_RUN_FROM_OUTSIDE,
    'cr_now=$(date +%s)',
    `for cr_root in ${RUN_ROOT_WORDS}; do`,
    '  cr_own_root "$cr_root" || continue',
    '  for cr_run in "$cr_root"/*; do',
    '    cr_tag=${cr_run##*/}',
    '    cr_is_tag "$cr_tag" && cr_own_dir "$cr_run" || continue',
    '    cr_beat=$(stat -c %Y "$cr_run/heartbeat" 2>/dev/null || stat -c %Y "$cr_run")',
    `    [ $((cr_now - cr_beat)) -ge ${Math.ceil(options.staleSeconds)} ] || continue`,
    '    cr_stop_run lease',
    `    printf '@@catalyst-sweep stopped tag=%s\\n' "$cr_tag"`,
    '  done',
    'done',
  ].join('\n');
}

const SWEEP_LINE = /^@@catalyst-sweep stopped tag=([a-z0-9-]{8,64})$/;

/** The tags a sweep script reports as stopped, from its stdout. */
export function parseSweepOutput(stdout: string): string[] {
  return stdout.split('\n').flatMap((line) => {
    const match = SWEEP_LINE.exec(line);
    return match?.[1] === undefined ? [] : [match[1]];
  });
}
