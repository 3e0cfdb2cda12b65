# shellcheck shell=sh
# Stops a run from any connection (after a reconnect or a backend restart): `/bin/sh -c "<this>" catalyst-kill
# <grace polls>`, the run tag the first line of its stdin (never an argument: `ps` shows argv to every user). The
# same stop as the watchdog's, with `cancel` as the reason. Only a run dir of ours, in a root of ours, is read or
# written; without one the tagged processes are still stopped (only our own processes show us their environment).
# Prints `@@catalyst-kill tag=<TAG> remaining=<N>`; N is 0 unless a process survived KILL (one in uninterruptible
# sleep).

cr_polls=$1
cr_uid=''
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/run-dir.sh
. ./lib/run-dir.sh
cr_tag=
IFS= read -r cr_tag
cr_is_tag "$cr_tag" || {
  printf 'catalyst-kill: no valid run tag on stdin\n' >&2
  exit 2
}
cr_run=
cr_run_roots
for cr_root in "$cr_root_tmp" "$cr_root_home"; do
  cr_own_root "$cr_root" || continue
  if cr_own_dir "$cr_root/$cr_tag"; then
    cr_run=$cr_root/$cr_tag
    break
  fi
done
cr_stop_run cancel
# KILL is asynchronous: give the kernel a moment before counting survivors.
cr_i=0
while [ "$cr_i" -lt 10 ] && [ -n "$(cr_left)" ]; do
  sleep 0.1
  cr_i=$((cr_i + 1))
done
printf '@@catalyst-kill tag=%s remaining=%s\n' "$cr_tag" "$(cr_left | wc -l)"
