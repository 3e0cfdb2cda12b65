# shellcheck shell=sh
# The run wrapper W (ssh-field-notes.md §3b, adapted; core/run-wrapper.ts renders its arguments): starts the job so
# that nothing it starts outlives the run, whatever happens to the backend or the connection.
#   `/bin/sh -c "<this>" catalyst-run <grace polls> <lease s> <max runtime s> <cwd> <watchdog's shell>
#    <watchdog script> <test-only FIFO open delay s, 0> <number of env entries> <NAME=value>… <job argv>…`
# The layout:
#   - W prints the start marker on stdout and stderr, cd's, makes a private run dir with a FIFO, and starts
#   - J, the job, in its own session (`setsid`) with CATALYST_RUN_TAG in its environment, stdin = the FIFO, and
#   - D, the watchdog (run-watchdog.sh), in another session, stdin = the channel's stdin, output to /dev/null.
# W waits for J, then reaps whatever J left behind (TERM, grace, KILL to the tag and J's group), ends D, removes the
# run dir, prints the trailer on stderr and exits with J's status. J in a session of its own means a stop never
# signals W, so the trailer and the exit status always come out (the notes' W got the group's KILL). The trailer
# starts with a `\n` of its own, so it is a line of its own even after stderr that lacks a final newline; the reader
# (core/run-markers.ts) removes that `\n` with it.
# The run tag is in no argument: W reads it as the first line of its stdin, and hands it to D in D's environment. A
# command line is visible to every user of the host in `ps`; an environment only to its owner (issue 16, item 2).

cr_polls=$1 cr_lease=$2 cr_maxt=$3 cr_cwd=$4 cr_shell=$5 cr_watchdog=$6 cr_delay=$7 cr_nenv=$8
shift 8
cr_run='' cr_uid=''
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/run-dir.sh
. ./lib/run-dir.sh
cr_tag=
IFS= read -r cr_tag
cr_is_tag "$cr_tag" || {
  printf 'catalyst-run: no valid run tag on stdin\n' >&2
  exit 2
}
printf '@@catalyst-run started tag=%s pid=%s\n' "$cr_tag" "$$"
printf '@@catalyst-run started tag=%s pid=%s\n' "$cr_tag" "$$" >&2
exec 3<&0 </dev/null
cr_finish() {
  printf '\n@@catalyst-run ended reason=%s code=%s\n' "$1" "$2" >&2
  exit "$2"
}
cr_fail_setup() {
  printf 'catalyst-run: %s\n' "$1" >&2
  [ -z "$cr_run" ] || rm -rf "$cr_run"
  cr_finish setup 1
}
# 86: CWD_NOT_FOUND_EXIT_CODE (runs/core/claude-command.ts).
cd "$cr_cwd" || cr_finish cwd 86
# Whether the job's `env` has `--default-signal` (see the job below): asked in the background as soon as the cwd is
# known, so it runs alongside the run dir's set-up instead of in front of the job's exec, and W collects the answer
# (`wait`) just before it starts the job. With the env's PATH, if it has one (that is what picks `env`), and never
# tagged. `--version` after the option: one exec, no command to run.
(
  cr_i=0
  while [ "$cr_i" -lt "$cr_nenv" ]; do
    case $1 in PATH=*) export "${1?}" ;; esac
    shift
    cr_i=$((cr_i + 1))
  done
  exec env --default-signal=INT --version
) </dev/null >/dev/null 2>&1 3<&- &
cr_probe=$!
cr_read_uid
cr_make_run || cr_fail_setup "no private run directory under $TMPDIR, /tmp or $HOME"
command -v setsid >/dev/null 2>&1 || cr_fail_setup "setsid is missing"
mkfifo -m 600 "$cr_run/stdin" || cr_fail_setup "mkfifo failed"
cr_dfl=
wait "$cr_probe" && cr_dfl=1
printf '%s\n' "$$" >"$cr_run/wrapper"
# shellcheck source=lib/job.sh
. ./lib/job.sh
# The job's subshell: its stdin the FIFO, then the env, then the binary check (with the env's PATH), then the tag,
# then exec. `exec setsid` does not fork here (the trap of §3a needs a group leader, and a background subshell is not
# one), so `$!` is the job itself and W's `wait` gets its real status. Only this subshell exports the tag: W and D
# never carry it, so a stop never matches them. The FIFO is opened inside the subshell, and the job marks `opened`
# right after (D waits for the mark, below); cr_delay, 0 but in a test, holds that open back.
# A background job of a non-interactive sh starts with SIGINT and SIGQUIT ignored (POSIX, asynchronous lists without
# job control), an ignore that dash lets neither `trap` nor `exec` undo, so the watchdog's `i` would be lost on a job
# that does not catch SIGINT itself. `env --default-signal` (GNU coreutils 8.31+) restores the defaults across the
# exec; where it is missing the job keeps the ignore, which the claude CLI does not mind: it installs its own SIGINT
# handler. The probe above is W's child, started before the job and never tagged; its answer arrives as cr_dfl.
# 127: CLI_NOT_FOUND_EXIT_CODE (core/run-wrapper.ts).
(
  [ "$cr_delay" = 0 ] || sleep "$cr_delay"
  exec <"$cr_run/stdin"
  printf '' >"$cr_run/opened"
  cr_export_env "$@"
  shift "$cr_nenv"
  cr_require_binary "$1"
  export CATALYST_RUN_TAG="$cr_tag"
  [ -z "$cr_dfl" ] || exec env --default-signal=INT,QUIT setsid "$@"
  exec setsid "$@"
) 3<&- &
cr_job=$!
# The job's pid and start time, for a stop to know it after it dropped the tag (lib/stop.sh, cr_is_job).
cr_start_of "$cr_job"
printf '%s %s\n' "$cr_job" "$cr_s" >"$cr_run/job-start"
# A writer on the job's FIFO for D to inherit as fd 4, opened without waiting for anyone: a read-write open of a FIFO
# never blocks (Linux), and with it open neither does the write-only one; fd 5 is closed at once. So the job's
# read-only open completes as soon as the job gets to it, not when D has started and opened its own writer.
# shellcheck disable=SC2094
command exec 5<>"$cr_run/stdin" 4>"$cr_run/stdin" 5<&- || {
  kill -KILL "$cr_job" 2>/dev/null
  cr_fail_setup "opening the FIFO failed"
}
printf '%s\n' "$cr_job" >"$cr_run/job"
cr_tag=$cr_tag cr_run=$cr_run cr_job=$cr_job cr_wrapper=$$ setsid "$cr_shell" -c "$cr_watchdog" catalyst-watchdog \
  "$cr_polls" "$cr_lease" "$cr_maxt" <&3 3<&- >/dev/null 2>&1 &
cr_wd=$!
exec 3<&- 4>&-
printf '%s\n' "$cr_wd" >"$cr_run/watchdog"
# After J: the reason is whoever claimed it first (a stopper, or W's own `exit`); then reap, end D, clean up.
wait "$cr_job" 2>/dev/null
cr_rc=$?
# The job was W's until this moment: its session is the run's (lib/stop.sh, cr_session_ours).
cr_tick
cr_known=$cr_now_t
if [ -e "$cr_run/not-found" ]; then
  cr_reason=not_found
elif cr_claim exit; then
  cr_reason='exit'
else
  cr_reason=$(cat "$cr_run/reason" 2>/dev/null)
fi
cr_stop '' "$cr_job"
kill -TERM "$cr_wd" "-$cr_wd" 2>/dev/null
wait "$cr_wd" 2>/dev/null
rm -rf "$cr_run"
cr_finish "${cr_reason:-exit}" "$cr_rc"
