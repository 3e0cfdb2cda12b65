# shellcheck shell=sh
# The run directories (ssh-field-notes.md §3b, §3c): included, after lib/stop.sh, by the run wrapper and the kill
# and sweep scripts. Each run has `<root>/<tag>` (0700): its FIFO `stdin`, the pids `wrapper`, `job` and `watchdog`,
# `job-start` (the job's pid and start time), `heartbeat`, the marks `opened` and `not-found`, and the stop's
# `reason` (lib/stop.sh, cr_claim).
# shellcheck disable=SC2154

# The roots that hold run directories: a private per-user directory under $TMPDIR, then one under $HOME for when
# /tmp is not writable (§3c), into cr_root_tmp and cr_root_home. `id -u` only when cr_uid is empty (cr_read_uid).
cr_run_roots() {
  cr_root_tmp=${TMPDIR:-/tmp}/catalyst-runs-${cr_uid:-$(id -u)}
  cr_root_home=${HOME:-/nonexistent}/.catalyst-runs
}
# cr_uid: the effective uid (what `id -u` prints) without a fork: the third field of `Uid:` in /proc/self/status,
# read by the shell itself. Left empty when that fails, and cr_run_roots then asks `id -u`.
cr_read_uid() {
  cr_uid=
  while read -r cr_k _ cr_e _; do
    if [ "$cr_k" = Uid: ]; then
      cr_uid=$cr_e
      break
    fi
  done 2>/dev/null </proc/self/status
  case $cr_uid in '' | *[!0-9]*) cr_uid= ;; esac
}
# Makes `<root>/<tag>` (0700) under the first root that is a real directory owned by us, not a symlink another user
# planted in /tmp, and sets cr_run to its path. Runs in the caller's shell (no `$(…)`), and only calls `mkdir` for a
# root that does not exist yet.
cr_make_run() {
  cr_run_roots
  for cr_root in "$cr_root_tmp" "$cr_root_home"; do
    [ -d "$cr_root" ] || mkdir -m 700 "$cr_root" 2>/dev/null
    cr_own_root "$cr_root" || continue
    mkdir -m 700 "$cr_root/$cr_tag" 2>/dev/null || continue
    cr_run=$cr_root/$cr_tag
    return 0
  done
  return 1
}
# Stops one run from outside (kill script, sweep): claim $1 as the reason, stop the tagged processes and the job's
# group, end the watchdog's session, and remove the run dir when no wrapper is left to do it.
cr_stop_run() {
  cr_job='' cr_wd='' cr_wrapper=''
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
