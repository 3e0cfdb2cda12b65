# shellcheck shell=sh
# The supervisor S of a session on the host (issue 11; core/vm-job-shell.ts), started detached by
# session-start.sh: `<shell> -c "<this>" catalyst-session <warm idle s> <lease s> <detached s> <max lifetime s>
# <grace polls> <cwd> <number of env entries> <NAME=value>… <job argv>…`, with cr_tag (the session id) and cr_run
# (the session dir) in its environment. It runs the job with stdin a FIFO that S holds open (so claude never sees
# EOF until S lets go) and stdout/stderr appended to files, waits for it (a USR1 closes its stdin), reaps what it
# left, and writes `status` last.
# S's timer ends the session by itself: the disk that holds the session dir full (claude's output cannot be written:
# the CLI then hangs, measured), the warm idle limit (idle, nothing sent for that long: stdin is closed and claude
# exits), the lease (idle and no heartbeat: the backend is gone), the detached limit (a turn running and no
# heartbeat for that long: stopped), and the maximum lifetime.
# shellcheck disable=SC2154

cr_idle=$1 cr_lease=$2 cr_detach=$3 cr_maxt=$4 cr_polls=$5 cr_cwd=$6 cr_nenv=$7
shift 7
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/job.sh
. ./lib/job.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
# S's timer T, a subshell: `$$` there is still S's pid, so it can ask S to let go of stdin (USR1).
# The disk is asked every 5th second only: `df` is three processes, most of what a tick cost, and a session waits on
# its host all day.
cr_timer() {
  cr_start=$(date +%s)
  cr_ticks=0
  while sleep 1; do
    cr_now=$(date +%s)
    cr_ticks=$((cr_ticks + 1))
    if [ $((cr_now - cr_start)) -ge "$cr_maxt" ]; then
      cr_claim max_lifetime && cr_stop "$cr_job" "$cr_job"
      return
    fi
    if [ $((cr_ticks % 5)) = 0 ] && cr_full .; then
      ln claim-disk_full reason 2>/dev/null && cr_stop "$cr_job" "$cr_job"
      return
    fi
    cr_st=
    read -r cr_st <state 2>/dev/null
    cr_age heartbeat
    if [ "$cr_st" = turn ]; then
      if [ "$cr_a" -ge "$cr_detach" ]; then
        cr_claim detached_limit && cr_stop "$cr_job" "$cr_job"
        return
      fi
      continue
    fi
    if [ "$cr_a" -ge "$cr_lease" ]; then
      cr_claim backend_gone && kill -USR1 $$
      return
    fi
    cr_age state
    if [ "$cr_a" -ge "$cr_idle" ]; then
      cr_claim idle && kill -USR1 $$
      return
    fi
  done
}
umask 077
# The id came in S's environment; kept as a plain variable, so S's helpers (the timer's `sleep`) do not carry it:
# only the job and what it starts do (CATALYST_RUN_TAG), and a scan by id finds nothing once S is done.
cr_id=$cr_tag
unset cr_tag
cr_tag=$cr_id
cd "$cr_run" || exit 1
exec 4<>in
# The job: the cwd, the env, the binary check (with the env's PATH), the tag, then exec. 127: CLI_NOT_FOUND_EXIT_CODE
# (core/run-wrapper.ts).
(
  cd "$cr_cwd" || {
    printf '' >"$cr_run/no-cwd"
    exit 1
  }
  cr_export_env "$@"
  shift "$cr_nenv"
  cr_require_binary "$1"
  export CATALYST_RUN_TAG="$cr_tag"
  exec setsid "$@"
) <in >>out 2>>err 4<&- &
cr_job=$!
# The job's pid and start time, for a stop to know it after it dropped the tag (lib/stop.sh, cr_is_job).
cr_start_of "$cr_job"
printf '%s %s\n' "$cr_job" "$cr_s" >job-start
trap 'cr_usr=1; exec 4>&-' USR1
printf '%s\n' "$cr_job" >job
(cr_timer) 4>&- &
cr_t=$!
# A `wait` that USR1 interrupts returns 128+10, not the job's status: wait again while the job lives, and once more
# if the shell reaped it meanwhile (it keeps the status of a job not yet waited for; 127 if it did not).
while :; do
  cr_usr=
  wait "$cr_job"
  cr_rc=$?
  [ -n "$cr_usr" ] || break
  kill -0 "$cr_job" 2>/dev/null && continue
  wait "$cr_job"
  cr_w=$?
  [ "$cr_w" = 127 ] || cr_rc=$cr_w
  break
done
# The job was S's until this moment: its session is the run's (lib/stop.sh, cr_session_ours).
cr_tick
cr_known=$cr_now_t
exec 4>&-
cr_claim exit
cr_stop "" "$cr_job"
kill "$cr_t" 2>/dev/null
cr_reason=$(cat reason 2>/dev/null)
[ -e not-found ] && cr_reason=not_found
[ -e no-cwd ] && cr_reason=cwd
# A job that ended by itself on a full disk (its output could not be written) ended because of it.
case $cr_reason in '' | exit) cr_full . && cr_reason=disk_full ;; esac
cr_line="code=$cr_rc reason=${cr_reason:-exit}"
# On a full disk a new file cannot be written: the line goes over the padding reserved at the start instead.
{ printf '%s\n' "$cr_line" >status.tmp && mv status.tmp status; } 2>/dev/null ||
  { printf '%s\n' "$cr_line" 1<>status.res && mv status.res status; }
