import { CatalystError } from './catalyst-error.ts';
import { CLI_NOT_FOUND_EXIT_CODE, RUN_TAG_ENV, assertRunTag } from './run-wrapper.ts';
import { STOP_FUNCTIONS } from './run-wrapper-shell.ts';
import { renderEnvExports } from './claude-command.ts';
import { quoteShellArg, renderShellCommand } from './shell-quote.ts';

/**
 * A session that lives on the VM (issue 11): the claude process runs detached from every SSH channel, under a
 * supervisor S in a session of its own, with stdin a FIFO that S holds open (so claude never sees EOF until S lets
 * go) and stdout/stderr appended to files. Catalyst attaches over any channel: the attach script A follows the
 * output from a byte offset and passes input lines into the FIFO; closing A's channel stops nothing.
 *
 * Everything lives in `~/.catalyst-sessions/<id>/` (root and session dir 0700, owned, not symlinks: the checks of
 * run-wrapper-shell.ts): `in` (FIFO), `out`, `err`, `sup` and `job` (pids), `state` (`turn` or `idle`, set by
 * Catalyst through A), `heartbeat` (touched through A), `lock` (flock: one attacher at a time), and `status`
 * (`code=<n> reason=<why>`, written last, when S is done), `holder` (the pids of the A holding the lock), and
 * what S writes at the start so it can still say "disk full" when nothing more can be written (`claim-disk_full`,
 * `status.res`). Processes carry the session id as their run tag, so the existing stop-by-tag functions and process
 * scans find them.
 *
 * S's timer ends the session by itself: the disk that holds the session dir full (claude's output cannot be
 * written: the CLI then hangs, measured), the warm idle limit (idle, nothing sent for that long: stdin is closed and
 * claude exits), the lease (idle and no heartbeat: the backend is gone), the detached limit (a turn running and no
 * heartbeat for that long: stopped), and the maximum lifetime. The session id travels on stdin, never in argv.
 */

export const SESSION_ROOT = '"${HOME:-/nonexistent}/.catalyst-sessions"';
export const SESSION_END_MARKER = '@@catalyst-session-end';
export const ATTACH_MARKER = '@@catalyst-attach';

export interface SessionLimits {
  /** Idle with a backend attached: stdin is closed after this long without a turn. */
  warmIdleSeconds: number;
  /** Idle and no heartbeat for this long (the backend is gone): stdin is closed. */
  leaseSeconds: number;
  /** A turn running and no heartbeat for this long: the session is stopped. */
  detachedSeconds: number;
  maxLifetimeSeconds: number;
  graceSeconds: number;
}

export interface SessionStartOptions {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  limits: SessionLimits;
}

// Built on the run wrapper's blocks (STOP_FUNCTIONS: cr_own_dir, cr_claim, cr_is_tag, the stop by tag), which
// every session script includes first.
const SESSION_DIR_CHECKS = `
${STOP_FUNCTIONS}
cr_read_tag() {
  cr_tag=
  IFS= read -r cr_tag
  cr_is_tag "$cr_tag"
}
cr_session_dir() {
  cr_root=${SESSION_ROOT}
  cr_own_dir "$cr_root" || return 1
  cr_run=$cr_root/$cr_tag
  cr_own_dir "$cr_run"
}
cr_age() {
  cr_m=$(stat -c %Y "$1" 2>/dev/null) || { cr_a=0; return; }
  cr_a=$((cr_now - cr_m))
}
cr_displace() {
  read -r cr_hp cr_hc <holder 2>/dev/null || return 0
  # Only the A that holds this very lock (its fd 9): never a process that took over a pid of an A long gone.
  [ "/proc/$cr_hp/fd/9" -ef lock ] || return 0
  for cr_p in $cr_hc; do
    cr_pp=
    read -r _ _ _ cr_pp _ <"/proc/$cr_p/stat" 2>/dev/null
    [ "$cr_pp" = "$cr_hp" ] && kill -KILL "$cr_p" 2>/dev/null
  done
  kill -KILL "$cr_hp" 2>/dev/null
}
# S itself, not a process that took over its pid (a VM that rebooted): S and its forks carry \`cr_tag=<id>\` in
# their environment (the start script sets it there), nothing else does.
cr_sup_alive() {
  cr_sp=$(cr_pid_in "$1")
  [ -n "$cr_sp" ] && grep -qszxF "cr_tag=$cr_tag" "/proc/$cr_sp/environ"
}
# S is gone without a status (SIGKILLed: an OOM kill, a reboot, logind's KillUserProcesses): what is left of the
# job and of S's forks is stopped, and the status S never wrote is written here, with the reason claimed first
# (a cancel sent meanwhile) or \`vanished\`. Called in the session dir.
cr_vanish() {
  cr_claim vanished
  cr_stop "" ""
  for cr_f in $(grep -laszxF "cr_tag=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    cr_p=\${cr_f#/proc/}
    cr_p=\${cr_p%/environ}
    [ "$cr_p" = "$$" ] || kill -KILL "$cr_p" 2>/dev/null
  done
  cr_reason=$(cat reason 2>/dev/null)
  [ -e status ] || { printf 'code=137 reason=%s\\n' "\${cr_reason:-vanished}" >status.tmp && mv status.tmp status; }
}
# The start time of process $1 (field 22 of /proc/$1/stat) into cr_s, with builtins only (W asks 5 times a second).
cr_start_of() {
  cr_s=
  cr_stat "$1" || return 1
  set -- $cr_sf
  [ "$#" -ge 20 ] || return 1
  shift 19
  cr_s=$1
}
cr_full() {
  cr_k=$(df -Pk -- "$1" 2>/dev/null | { read -r _; read -r _ _ _ cr_v _; printf '%s' "$cr_v"; })
  [ "$cr_k" = 0 ]
}
`;

function seconds(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new CatalystError('INVALID_ARGUMENT', `${what} must be a number of seconds >= 0, got ${value}`);
  }
  return Math.ceil(value);
}

function renderLimits(limits: SessionLimits): string {
  return [
    `cr_idle=${seconds(limits.warmIdleSeconds, 'warmIdleSeconds')}`,
    `cr_lease=${seconds(limits.leaseSeconds, 'leaseSeconds')}`,
    `cr_detach=${seconds(limits.detachedSeconds, 'detachedSeconds')}`,
    `cr_maxt=${seconds(limits.maxLifetimeSeconds, 'maxLifetimeSeconds')}`,
    `cr_polls=${Math.round(seconds(limits.graceSeconds, 'graceSeconds') * 10)}`,
  ].join(' ');
}

// S's timer T, a subshell: `$$` there is still S's pid, so it can ask S to let go of stdin (USR1).
const SUPERVISOR_TIMER = `
cr_timer() {
  cr_start=$(date +%s)
  while sleep 1; do
    cr_now=$(date +%s)
    if [ $((cr_now - cr_start)) -ge "$cr_maxt" ]; then cr_claim max_lifetime && cr_stop "$cr_job" "$cr_job"; return; fi
    if cr_full .; then ln claim-disk_full reason 2>/dev/null && cr_stop "$cr_job" "$cr_job"; return; fi
    cr_st=
    read -r cr_st <state 2>/dev/null
    cr_age heartbeat
    if [ "$cr_st" = turn ]; then
      if [ "$cr_a" -ge "$cr_detach" ]; then cr_claim detached_limit && cr_stop "$cr_job" "$cr_job"; return; fi
      continue
    fi
    if [ "$cr_a" -ge "$cr_lease" ]; then cr_claim backend_gone && kill -USR1 $$; return; fi
    cr_age state
    if [ "$cr_a" -ge "$cr_idle" ]; then cr_claim idle && kill -USR1 $$; return; fi
  done
}
`;

function renderJob(options: SessionStartOptions): string[] {
  const [binary] = options.argv;
  if (binary === undefined) throw new CatalystError('INVALID_ARGUMENT', 'the session needs a non-empty argv');
  const env = options.env ?? {};
  if (RUN_TAG_ENV in env) {
    throw new CatalystError('INVALID_ARGUMENT', `${RUN_TAG_ENV} is set by the session, not by its spec`);
  }
  return [
    '(',
    `  cd ${quoteShellArg(options.cwd)} || { printf '' >"$cr_run/no-cwd"; exit 1; }`,
    ...renderEnvExports(env).map((line) => `  ${line}`),
    `  command -v ${quoteShellArg(binary)} >/dev/null 2>&1 || { printf '' >"$cr_run/not-found"; exit ${CLI_NOT_FOUND_EXIT_CODE}; }`,
    `  export ${RUN_TAG_ENV}="$cr_tag"`,
    `  exec setsid ${renderShellCommand(options.argv)}`,
    ') <in >>out 2>>err 4<&- &',
  ];
}

/** S: runs the job, waits for it (a USR1 closes its stdin), reaps what it left, and writes `status` last. */
function renderSupervisor(options: SessionStartOptions): string {
  return [
    renderLimits(options.limits),
    SESSION_DIR_CHECKS,
    SUPERVISOR_TIMER,
    'umask 077',
    // The id came in S's environment; kept as a plain variable, so S's helpers (the timer's `sleep`) do not carry
    // it: only the job and what it starts do (CATALYST_RUN_TAG), and a scan by id finds nothing once S is done.
    'cr_id=$cr_tag; unset cr_tag; cr_tag=$cr_id',
    'cd "$cr_run" || exit 1',
    'exec 4<>in',
    ...renderJob(options),
    'cr_job=$!',
    "trap 'cr_usr=1; exec 4>&-' USR1",
    `printf '%s\\n' "$cr_job" >job`,
    '(cr_timer) 4>&- &',
    'cr_t=$!',
    // A `wait` that USR1 interrupts returns 128+10, not the job's status: wait again while the job lives, and once
    // more if the shell reaped it meanwhile (it keeps the status of a job not yet waited for; 127 if it did not).
    'while :; do',
    '  cr_usr=',
    '  wait "$cr_job"',
    '  cr_rc=$?',
    '  [ -n "$cr_usr" ] || break',
    '  kill -0 "$cr_job" 2>/dev/null && continue',
    '  wait "$cr_job"',
    '  cr_w=$?',
    '  [ "$cr_w" = 127 ] || cr_rc=$cr_w',
    '  break',
    'done',
    'exec 4>&-',
    'cr_claim exit',
    'cr_stop "" "$cr_job"',
    'kill "$cr_t" 2>/dev/null',
    'cr_reason=$(cat reason 2>/dev/null)',
    '[ -e not-found ] && cr_reason=not_found',
    '[ -e no-cwd ] && cr_reason=cwd',
    // A job that ended by itself on a full disk (its output could not be written) ended because of it.
    "case $cr_reason in '' | exit) cr_full . && cr_reason=disk_full ;; esac",
    'cr_line="code=$cr_rc reason=${cr_reason:-exit}"',
    // On a full disk a new file cannot be written: the line goes over the padding reserved at the start instead.
    `{ printf '%s\\n' "$cr_line" >status.tmp && mv status.tmp status; } 2>/dev/null || { printf '%s\\n' "$cr_line" 1<>status.res && mv status.res status; }`,
  ].join('\n');
}

/**
 * Creates the session dir and starts S detached (every fd of S is a file or /dev/null, so the channel that started
 * it closes at once: sshd keeps a channel while a child holds it, ssh-field-notes.md §2). Prints
 * `@@catalyst-attach started` once S has started the job; exit 3 when the session dir exists already.
 */
export function renderSessionStart(options: SessionStartOptions, shell = '/bin/sh'): string {
  if (!options.cwd.startsWith('/')) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `cwd must be an absolute path, got ${JSON.stringify(options.cwd)}`,
    );
  }
  const supervisor = quoteShellArg(renderSupervisor(options));
  return [
    SESSION_DIR_CHECKS,
    'umask 077',
    `cr_read_tag || { printf 'catalyst-session: no valid session id on stdin\\n' >&2; exit 2; }`,
    `cr_root=${SESSION_ROOT}`,
    '[ -d "$cr_root" ] || mkdir -m 700 "$cr_root" 2>/dev/null',
    `cr_own_dir "$cr_root" || { printf 'catalyst-session: %s is not a private directory of this user\\n' "$cr_root" >&2; exit 2; }`,
    'chmod 700 "$cr_root"',
    `cr_full "$cr_root" && { printf 'catalyst-session: no space left on the disk that holds %s\\n' "$cr_root" >&2; exit 6; }`,
    'cr_run=$cr_root/$cr_tag',
    `mkdir -m 700 "$cr_run" 2>/dev/null || { printf 'catalyst-session: the session exists already\\n' >&2; exit 3; }`,
    'command -v setsid >/dev/null 2>&1 || { printf "catalyst-session: setsid is missing\\n" >&2; rm -rf "$cr_run"; exit 2; }',
    'mkfifo -m 600 "$cr_run/in" || { rm -rf "$cr_run"; exit 2; }',
    ': >"$cr_run/out"; : >"$cr_run/err"; printf idle >"$cr_run/state"; : >"$cr_run/heartbeat"',
    // Written now, while there is room: what S needs to say "disk full" once there is none (a claim to link to
    // `reason`, and padding that the status line overwrites in place).
    `printf 'disk_full\\n' >"$cr_run/claim-disk_full"; printf '%63s\\n' '' >"$cr_run/status.res"`,
    `cr_tag=$cr_tag cr_run=$cr_run setsid ${quoteShellArg(shell)} -c ${supervisor} catalyst-session </dev/null >/dev/null 2>&1 &`,
    `printf '%s\\n' "$!" >"$cr_run/sup"`,
    'cr_i=0',
    'while [ ! -s "$cr_run/job" ] && [ ! -e "$cr_run/status" ] && [ "$cr_i" -lt 100 ]; do sleep 0.05; cr_i=$((cr_i + 1)); done',
    `printf '${ATTACH_MARKER} started\\n'`,
  ].join('\n');
}

/**
 * A: attaches to a session, following `out` from byte `stdoutOffset` and `err` from `stderrOffset`, and passing
 * stdin lines on: `{…` into the FIFO, `h` heartbeat, `t` / `r` turn running / idle, `e` close the job's stdin,
 * `i` SIGINT to the job, `c` stop. Refuses with exit 4 while another A holds the lock and its Catalyst is heard
 * from (`heartbeat` younger than `staleSeconds`); an A whose Catalyst has been silent longer (its connection died
 * without sshd noticing) is killed and the lock taken over. Exit 3 when there is no such session. When the session ends, A ends with `@@catalyst-session-end code=… reason=…` on stderr; when its
 * own stdin ends (the channel closed), it ends and the session goes on.
 */
export function renderAttach(
  offsets: { stdout: number; stderr: number },
  staleSeconds: number,
  options: { awaitStart?: boolean } = {},
): string {
  const from = (offset: number) => {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new CatalystError('INVALID_ARGUMENT', `an offset must be a whole number >= 0, got ${offset}`);
    }
    return offset + 1;
  };
  return [
    SESSION_DIR_CHECKS,
    'cr_polls=50',
    `cr_read_tag || { printf 'catalyst-attach: no valid session id on stdin\\n' >&2; exit 2; }`,
    ...(options.awaitStart === true ? [AWAIT_START] : []),
    `cr_session_dir || { printf '\\n${ATTACH_MARKER} gone\\n' >&2; exit 3; }`,
    'cd "$cr_run" || exit 3',
    `cr_stale=${Math.max(2, Math.ceil(seconds(staleSeconds, 'staleSeconds')))}`,
    'exec 9>>lock',
    // Held: by a live attacher (its Catalyst touches `heartbeat`), refused; by one whose Catalyst has not been
    // heard from for cr_stale seconds (a connection that died without a word reaching sshd), displaced.
    'if ! flock -n 9; then',
    '  cr_now=$(date +%s); cr_age heartbeat',
    `  [ "$cr_a" -ge "$cr_stale" ] || { printf '\\n${ATTACH_MARKER} busy %s\\n' "$cr_a" >&2; exit 4; }`,
    '  cr_displace',
    `  flock -w 5 9 || { printf '\\n${ATTACH_MARKER} busy %s\\n' "$cr_a" >&2; exit 4; }`,
    'fi',
    'read -r cr_sup <sup; read -r cr_job <job',
    `printf '${ATTACH_MARKER} start\\n'; printf '${ATTACH_MARKER} start\\n' >&2`,
    // A session whose S died before this attach (a reboot: its pid may be another process now) ends here, once.
    '[ -e status ] || cr_sup_alive sup || cr_vanish',
    'cr_start_of "$cr_sup"; cr_sst=$cr_s',
    ': >heartbeat',
    'exec 3<&0 </dev/null',
    // The tails follow until W ends: W, A's own child, ends once S has written its status (all output is in the
    // files by then) or S is gone: no process with S's pid and start time (a pid taken over by another process is
    // not S). Not `--pid` of S itself: S is not our child, and a zombie S that a slow init has not reaped yet still
    // has its /proc entry (seen here: a second or more).
    `(while [ ! -e status ] && cr_start_of "$cr_sup" && [ "$cr_s" = "$cr_sst" ]; do sleep 0.2; done) </dev/null >/dev/null 2>&1 9>&- 3<&- &`,
    'cr_w=$!',
    `tail -c +${from(offsets.stdout)} -s 0.1 --pid="$cr_w" -f out 9>&- 3<&- &`,
    'cr_t1=$!',
    `tail -c +${from(offsets.stderr)} -s 0.1 --pid="$cr_w" -f err >&2 9>&- 3<&- &`,
    'cr_t2=$!',
    ATTACH_READER,
    // Who holds the lock, for the next attacher that has to displace it.
    `printf '%s %s %s %s %s\\n' "$$" "$cr_w" "$cr_t1" "$cr_t2" "$cr_reader" >holder 2>/dev/null`,
    'wait "$cr_t1"; wait "$cr_t2"',
    // W ended: S wrote its status, or S is gone without one (then it never will: A ends the session), or this
    // attachment's own channel closed (S lives on: the session goes on).
    '[ -e status ] || cr_sup_alive sup || cr_vanish',
    '[ -e status ] || exit 0',
    'kill "$cr_reader" 2>/dev/null',
    'read -r cr_status <status',
    `printf '\\n${SESSION_END_MARKER} %s\\n' "$cr_status" >&2`,
  ].join('\n');
}

/**
 * The first attachment of a new session is opened before the session is started (issue 25, item 4): it holds one
 * of the host's run channels, so a session never starts while its attachment waits in the pool's queue past the
 * lease (a busy host then ended it as if Catalyst were gone). It waits here, up to 40 s, for the start script to
 * have started the job; a start that takes longer (its control channel queued too) is refused as `gone`, never
 * followed half made, and Catalyst attaches again once the start is done (session-run.ts).
 */
const AWAIT_START = `cr_started() {
  cr_session_dir && { { [ -s "$cr_run/sup" ] && [ -s "$cr_run/job" ]; } || [ -e "$cr_run/status" ]; }
}
cr_i=0
while [ "$cr_i" -lt 400 ] && ! cr_started; do
  sleep 0.1
  cr_i=$((cr_i + 1))
done
cr_started || { printf '\\n${ATTACH_MARKER} gone\\n' >&2; exit 3; }`;

const ATTACH_READER = `(
  while IFS= read -r cr_l; do
    case $cr_l in
      '{'*) printf '%s\\n' "$cr_l" 1<>in ;;
      h) : >heartbeat ;;
      t) printf turn >state ;;
      r) printf idle >state ;;
      e) kill -USR1 "$cr_sup" 2>/dev/null ;;
      i) kill -INT "$cr_job" 2>/dev/null ;;
      c) cr_claim cancel && cr_stop "$cr_job" "$cr_job" ;;
    esac
  done
  kill "$cr_t1" "$cr_t2" "$cr_w" 2>/dev/null
) <&3 3<&- 9>&- &
cr_reader=$!
exec 3<&-`;

/** Out of band: stops a session (claims `cancel`), from any channel; S then writes its status. */
export function renderSessionStop(graceSeconds: number): string {
  return [
    SESSION_DIR_CHECKS,
    `cr_polls=${Math.round(seconds(graceSeconds, 'graceSeconds') * 10)}`,
    `cr_read_tag || exit 2`,
    'cr_session_dir || exit 0',
    'read -r cr_job <"$cr_run/job" 2>/dev/null',
    'cr_claim cancel',
    'cr_stop "$cr_job" "$cr_job"',
  ].join('\n');
}

/**
 * Every session of this user, one line each: `<id> <alive 0|1> <out bytes> <err bytes> <held> <status or ->`,
 * where `held` is `-` when no attacher holds the session, else the age of its heartbeat in seconds. A dead S without
 * a status is a VM that rebooted (or a SIGKILLed S): `-` with alive 0.
 */
export const LIST_SESSIONS = `
${SESSION_DIR_CHECKS}
cr_root=${SESSION_ROOT}
cr_own_dir "$cr_root" || exit 0
for cr_run in "$cr_root"/*; do
  cr_own_dir "$cr_run" || continue
  cr_tag=\${cr_run##*/}
  case $cr_tag in '' | *[!a-z0-9-]*) continue ;; esac
  cr_alive=0
  # S writes status last: with it, S is over (a zombie S may not be reaped yet).
  [ -e "$cr_run/status" ] || { cr_sup_alive "$cr_run/sup" && cr_alive=1; }
  cr_held=-
  if [ -e "$cr_run/lock" ] && ! flock -n "$cr_run/lock" true 2>/dev/null; then
    cr_now=$(date +%s); cr_age "$cr_run/heartbeat"; cr_held=$cr_a
  fi
  cr_status=-
  [ -e "$cr_run/status" ] && read -r cr_status <"$cr_run/status"
  printf '%s %s %s %s %s %s\\n' "$cr_tag" "$cr_alive" "$(stat -c %s "$cr_run/out" 2>/dev/null || echo 0)" "$(stat -c %s "$cr_run/err" 2>/dev/null || echo 0)" "$cr_held" "$cr_status"
done
`;

/** Removes a session's files once S is gone (exit 5 while it lives: stop it first). */
export const REMOVE_SESSION = `
${SESSION_DIR_CHECKS}
cr_read_tag || exit 2
cr_session_dir || exit 0
[ -e "$cr_run/status" ] || { cr_sup_alive "$cr_run/sup" && exit 5; }
rm -rf "$cr_run"
`;

export function renderSessionIdLine(sessionId: string): string {
  assertRunTag(sessionId);
  return `${sessionId}\n`;
}
