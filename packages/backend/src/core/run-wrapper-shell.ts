/**
 * The POSIX sh building blocks of the run wrapper (run-wrapper.ts assembles them). Plain sh for dash and bash
 * alike: no `local`, no arrays, no `$'…'`, `kill -SIG -PGID` (dash rejects `--` and `-s`, ssh-field-notes.md
 * §3a). Every name starts with `cr_` so nothing collides with the job's environment. The values a block reads
 * (`cr_tag`, `cr_polls`, `cr_lease`, `cr_maxt`, `cr_run`, …) are set by the script that includes it.
 */

/** Stopping a run by its tag: shared by the wrapper, its watchdog, the kill script and the sweep. */
export const STOP_FUNCTIONS = `
cr_tagged() {
  for cr_f in $(grep -laszxF "CATALYST_RUN_TAG=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    cr_p=\${cr_f#/proc/}
    cr_p=\${cr_p%/environ}
    [ "$cr_p" = "$$" ] || printf '%s\\n' "$cr_p"
  done
}
cr_stat() {
  cr_sf=
  read -r cr_sf 2>/dev/null <"/proc/$1/stat" || return 1
  cr_sf=\${cr_sf##*) }
}
cr_ours() {
  grep -qszxF -e "CATALYST_RUN_TAG=$cr_tag" -e "cr_tag=$cr_tag" "/proc/$1/environ" && return 0
  cr_stat "$1" || return 1
  set -- $cr_sf
  [ "$2" = "$$" ]
}
cr_group_ours() {
  cr_g=$1
  shift
  cr_ours "$cr_g" && return 0
  for cr_p in "$@"; do
    cr_stat "$cr_p" || continue
    set -- $cr_sf
    [ "$3" = "$cr_g" ] && return 0
  done
  return 1
}
cr_signal() {
  cr_pids=$(cr_tagged)
  cr_job_pid=
  [ -z "$2" ] || ! cr_ours "$2" || cr_job_pid=$2
  [ -z "$cr_pids$cr_job_pid" ] || kill "-$1" $cr_pids $cr_job_pid 2>/dev/null
  [ -z "$3" ] || ! cr_group_ours "$3" $cr_pids || kill "-$1" "-$3" 2>/dev/null
}
cr_stop() {
  cr_signal TERM "$1" "$2"
  cr_i=0
  while [ "$cr_i" -lt "$cr_polls" ] && [ -n "$(cr_tagged)" ]; do
    sleep 0.1
    cr_i=$((cr_i + 1))
  done
  cr_signal KILL "$1" "$2"
}
cr_claim() {
  (set -C; printf '%s\\n' "$1" >"$cr_run/claim-$1") 2>/dev/null || return 0
  ln "$cr_run/claim-$1" "$cr_run/reason" 2>/dev/null
}
cr_own_dir() {
  [ -d "$1" ] && [ ! -h "$1" ] && [ -O "$1" ]
}
cr_own_root() {
  cr_own_dir "$1" && chmod 700 "$1" 2>/dev/null
}
cr_is_tag() {
  case $1 in '' | *[!a-z0-9-]*) return 1 ;; esac
  [ "\${#1}" -ge 8 ] && [ "\${#1}" -le 64 ]
}
cr_pid_in() {
  cr_v=
  read -r cr_v 2>/dev/null <"$1"
  case $cr_v in '' | *[!0-9]*) ;; *) printf '%s' "$cr_v" ;; esac
}
`;
// cr_tagged: one grep over every environ (-z -x: the whole NUL-separated entry, so a longer tag never matches);
//   zombies have an empty environ and drop out by themselves. Excludes the caller, as the field notes do.
// cr_stat: the fields of /proc/$1/stat after the command's name (which may hold spaces and parentheses) into
//   cr_sf, with builtins only: the state first, then ppid, pgrp, … (field 3 of proc(5) on).
// cr_ours: whether pid $1 is still this run's, not a process that took over a pid written down before (pid reuse,
//   a reboot: issue 25, item 5): it carries the tag (CATALYST_RUN_TAG after the job's exec; \`cr_tag=\` in the
//   environment of a session's supervisor and its forks, the job's subshell before its exec among them), or it is
//   a child of this very shell (the wrapper's job before its exec; a zombie not yet reaped).
// cr_group_ours: group $1 is the run's: its leader is ours, or one of the tagged pids ($2…) is in it (a group id
//   is not handed out again while the group has a member).
// cr_signal: $1 signal, $2 the job's pid (before it execs, its subshell does not carry the tag yet), $3 its group;
//   the pid and the group only when they are still the run's.
// cr_stop: TERM, poll every 0.1 s for at most cr_polls polls while tagged processes remain, then KILL the set.
// cr_claim: the first stopper wins (ln is atomic and fails when the reason exists); a reader never sees a
//   half-written reason. If the run dir is gone there is nothing to claim, so the caller stops anyway. The claim
//   is written with noclobber (O_EXCL), so it never follows a symlink nor overwrites anything.
// cr_own_dir, cr_own_root: every root and run dir is used only when it is a real directory owned by us, never a
//   symlink; a root is then made 0700 (issue 16, item 2: on a shared VM another user can create
//   /tmp/catalyst-runs-<uid> first, or plant <root>/<tag> in it). Inside a root of ours that is 0700 nobody but
//   us (and root) can add an entry, so an owned run dir there was made by us, with `mkdir -m 700`.
// cr_is_tag: RUN_TAG_PATTERN in builtins only (the tag never goes to a helper's argv).

/**
 * The roots that hold run directories, as words for a `for` loop: a private per-user directory under $TMPDIR,
 * then one under $HOME for when /tmp is not writable (ssh-field-notes.md §3c).
 */
export const RUN_ROOT_WORDS =
  '"${TMPDIR:-/tmp}/catalyst-runs-${cr_uid:-$(id -u)}" "${HOME:-/nonexistent}/.catalyst-runs"';

/**
 * Sets `cr_uid` to the effective uid (what `id -u` prints) without a fork: the third field of `Uid:` in
 * /proc/self/status, read by the shell itself. Left empty when that fails, and RUN_ROOT_WORDS then asks `id -u`.
 */
export const READ_UID = `
cr_uid=
while read -r cr_k cr_r cr_e cr_x; do
  if [ "$cr_k" = Uid: ]; then cr_uid=$cr_e; break; fi
done 2>/dev/null </proc/self/status
case $cr_uid in '' | *[!0-9]*) cr_uid= ;; esac
`;

/**
 * Makes `<root>/<tag>` (0700) under the first root that is a real directory owned by us, not a symlink another
 * user planted in /tmp, and sets `cr_run` to its path. Runs in the caller's shell (no `$(…)`), and only calls
 * `mkdir` for a root that does not exist yet.
 */
export const MAKE_RUN_DIR = `
cr_make_run() {
  for cr_root in ${RUN_ROOT_WORDS}; do
    [ -d "$cr_root" ] || mkdir -m 700 "$cr_root" 2>/dev/null
    cr_own_root "$cr_root" || continue
    mkdir -m 700 "$cr_root/$cr_tag" 2>/dev/null || continue
    cr_run=$cr_root/$cr_tag
    return 0
  done
  return 1
}
`;

/**
 * Stops one run from outside (kill script, sweep): claim `$1` as the reason, stop the tagged processes and the
 * job's group, end the watchdog's session, and remove the run dir when no wrapper is left to do it.
 */
export const STOP_RUN_FROM_OUTSIDE = `
cr_stop_run() {
  cr_job= cr_wd= cr_wrapper=
  if [ -n "$cr_run" ]; then
    cr_job=$(cr_pid_in "$cr_run/job")
    cr_wd=$(cr_pid_in "$cr_run/watchdog")
    cr_wrapper=$(cr_pid_in "$cr_run/wrapper")
    cr_claim "$1"
  fi
  cr_stop "$cr_job" "$cr_job"
  [ -z "$cr_wd" ] || kill -TERM "-$cr_wd" 2>/dev/null
  if [ -n "$cr_run" ] && ! { [ -n "$cr_wrapper" ] && kill -0 "$cr_wrapper" 2>/dev/null; }; then
    rm -rf "$cr_run"
  fi
}
`;

/**
 * The watchdog D (ssh-field-notes.md §3b), a `setsid` shell outside the run's tag and group whose stdin is the
 * channel's stdin: `{…` lines go to the job's FIFO unchanged, `h` renews the lease, `c` stops, `e` closes the
 * job's stdin, `i` interrupts the job, EOF stops. Its timer T (a subshell) stops the run when the lease lapses or
 * the run is too old. It finds `cr_tag`, `cr_run` (the run dir), `cr_job` and `cr_wrapper` (pids) in its
 * environment, not its argv: `ps` shows every user the argv of a process, only its owner the environment.
 */
export const WATCHDOG_BODY = `
cr_watch_stop() {
  cr_claim "$1" || return 0
  cr_stop "$cr_job" "$cr_job"
  kill -0 "$cr_wrapper" 2>/dev/null || rm -rf "$cr_run"
  kill -TERM "-$$" 2>/dev/null
}
cr_timer() {
  cr_start=$(date +%s)
  while sleep 1; do
    cr_now=$(date +%s)
    if [ $((cr_now - cr_start)) -ge "$cr_maxt" ]; then cr_watch_stop max_runtime; return; fi
    cr_beat=$(stat -c %Y "$cr_beatfile" 2>/dev/null) || continue
    if [ $((cr_now - cr_beat)) -ge "$cr_lease" ]; then cr_watch_stop lease; return; fi
  done
}
trap '' PIPE
printf '' >"$cr_run/heartbeat"
cr_beatfile=heartbeat
cd "$cr_run" 2>/dev/null || cr_beatfile=$cr_run/heartbeat
(exec 4>&-; cr_timer) </dev/null &
cr_opened=
cr_await_job() {
  [ -z "$cr_opened" ] || return 0
  while [ ! -e "$cr_run/opened" ] && kill -0 "$cr_job" 2>/dev/null; do sleep 0.05; done
  cr_opened=1
}
cr_input=open
while IFS= read -r cr_line; do
  case $cr_line in
    '{'*) [ "$cr_input" = closed ] || { cr_await_job; printf '%s\\n' "$cr_line" >&4; } ;;
    h) printf '' >"$cr_run/heartbeat" ;;
    c) cr_watch_stop cancel ;;
    e) cr_await_job; exec 4>&-; cr_input=closed ;;
    i) kill -INT "$cr_job" 2>/dev/null ;;
  esac
done
cr_watch_stop eof
`;
// D's fd 4 is a writer on the job's FIFO that W opened right after starting the job (run-wrapper.ts), so the
// job's read-only open never waits for D's start-up, and D never blocks on an open either (a job that has already
// closed its stdin, or ended, must not stop D from reading `c`, `h` and EOF). The job marks `opened` right after
// its open; before its first write and before closing its end (on `e`), D waits for that mark while the job lives,
// so it loses no line to a job not yet reading and cannot close the last writer before the job's open, which would
// leave the job waiting for a writer forever. Normally the mark is there long before D is. T drops the inherited
// fd 4 in its own subshell (`exec`, not a `4>&-` on the function call: dash keeps a saved copy of an fd closed
// that way on a backgrounded function), so D holds the only writer and closing it on `e` is the job's EOF. SIGPIPE
// is ignored so that a job that closes its stdin costs D only a failed write, not its life. `printf ''` rather
// than `:` for the heartbeat: a failed redirection on a special builtin would end the watchdog. `kill -TERM -$$`
// ends D's own session (D and T) once D or T has stopped the run.
// T stats the heartbeat by a relative path from the run dir, so the tag is not in a helper's argv every second.
// `i` is SIGINT to J's pid alone: not its group, not the tag set, not D; the claude CLI ends its turn and exits
// (claude-cli-protocol.md §9). Nothing is claimed, so the run ends as the job does (reason=exit). The loop reads
// on after `e`, so `i`, `h` and `c` still arrive once the job's input is closed (the CLI can hang after its
// result). An `i` that comes before J has exec'd meets the subshell, which ignores INT (run-wrapper.ts).
