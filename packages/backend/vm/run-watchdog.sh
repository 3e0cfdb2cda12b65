# shellcheck shell=sh
# The watchdog D (ssh-field-notes.md §3b), started by the run wrapper (run-wrapper.sh) as a `setsid` shell outside
# the run's tag and group: `<shell> -c "<this>" catalyst-watchdog <grace polls> <lease s> <max runtime s>`, its stdin
# the channel's stdin: `{…` lines go to the job's FIFO unchanged, `h` renews the lease, `c` stops, `e` closes the
# job's stdin, `i` interrupts the job, EOF stops. Its timer T (a subshell) stops the run when the lease lapses or the
# run is too old. It finds cr_tag, cr_run (the run dir), cr_job and cr_wrapper (pids) in its environment, not its
# argv: `ps` shows every user the argv of a process, only its owner the environment.
# shellcheck disable=SC2154

cr_polls=$1 cr_lease=$2 cr_maxt=$3
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
cr_watch_stop() {
  cr_claim "$1" || return 0
  cr_stop "$cr_job" "$cr_job"
  kill -0 "$cr_wrapper" 2>/dev/null || rm -rf "$cr_run"
  kill -TERM "-$$" 2>/dev/null
}
# T stats the heartbeat by a relative path from the run dir, so the tag is not in a helper's argv every second.
cr_timer() {
  cr_start=$(date +%s)
  while sleep 1; do
    cr_now=$(date +%s)
    if [ $((cr_now - cr_start)) -ge "$cr_maxt" ]; then
      cr_watch_stop max_runtime
      return
    fi
    cr_beat=$(stat -c %Y "$cr_beatfile" 2>/dev/null) || continue
    if [ $((cr_now - cr_beat)) -ge "$cr_lease" ]; then
      cr_watch_stop lease
      return
    fi
  done
}
# D's fd 4 is a writer on the job's FIFO that W opened right after starting the job, so the job's read-only open
# never waits for D's start-up, and D never blocks on an open either (a job that has already closed its stdin, or
# ended, must not stop D from reading `c`, `h` and EOF). The job marks `opened` right after its open; before its
# first write and before closing its end (on `e`), D waits for that mark while the job lives, so it loses no line to
# a job not yet reading and cannot close the last writer before the job's open, which would leave the job waiting
# for a writer forever. Normally the mark is there long before D is. T drops the inherited fd 4 in its own subshell
# (`exec`, not a `4>&-` on the function call: dash keeps a saved copy of an fd closed that way on a backgrounded
# function), so D holds the only writer and closing it on `e` is the job's EOF. SIGPIPE is ignored so that a job
# that closes its stdin costs D only a failed write, not its life. `printf ''` rather than `:` for the heartbeat: a
# failed redirection on a special builtin would end the watchdog. `kill -TERM -$$` ends D's own session (D and T)
# once D or T has stopped the run.
trap '' PIPE
printf '' >"$cr_run/heartbeat"
cr_beatfile=heartbeat
cd "$cr_run" 2>/dev/null || cr_beatfile=$cr_run/heartbeat
(
  exec 4>&-
  cr_timer
) </dev/null &
cr_opened=
cr_await_job() {
  [ -z "$cr_opened" ] || return 0
  while [ ! -e "$cr_run/opened" ] && kill -0 "$cr_job" 2>/dev/null; do sleep 0.05; done
  cr_opened=1
}
# `i` is SIGINT to J's pid alone: not its group, not the tag set, not D; the claude CLI ends its turn and exits
# (claude-cli-protocol.md §9). Nothing is claimed, so the run ends as the job does (reason=exit). The loop reads on
# after `e`, so `i`, `h` and `c` still arrive once the job's input is closed (the CLI can hang after its result). An
# `i` that comes before J has exec'd meets the subshell, which ignores INT (run-wrapper.sh).
cr_input=open
while IFS= read -r cr_line; do
  case $cr_line in
    '{'*) [ "$cr_input" = closed ] || {
      cr_await_job
      printf '%s\n' "$cr_line" >&4
    } ;;
    h) printf '' >"$cr_run/heartbeat" ;;
    c) cr_watch_stop cancel ;;
    e)
      cr_await_job
      exec 4>&-
      cr_input=closed
      ;;
    i) kill -INT "$cr_job" 2>/dev/null ;;
  esac
done
cr_watch_stop eof
