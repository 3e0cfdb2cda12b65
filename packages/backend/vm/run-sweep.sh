# shellcheck shell=sh
# Stops every run of this user whose heartbeat file is stale (its watchdog is gone or stuck), with `lease` as the
# reason, and removes run dirs no wrapper owns any more: those of a wrapper that was SIGKILLed.
# `/bin/sh -c "<this>" catalyst-sweep <grace polls> <stale s>`; a run whose last heartbeat is at least <stale s> old
# is stopped (far longer than any lease). Only roots and run dirs of ours are looked at (cr_own_root, cr_own_dir).
# Prints `@@catalyst-sweep stopped tag=<TAG>` per run.

cr_polls=$1 cr_stale=$2
cr_uid=''
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/run-dir.sh
. ./lib/run-dir.sh
cr_now=$(date +%s)
cr_run_roots
for cr_root in "$cr_root_tmp" "$cr_root_home"; do
  cr_own_root "$cr_root" || continue
  for cr_run in "$cr_root"/*; do
    cr_tag=${cr_run##*/}
    { cr_is_tag "$cr_tag" && cr_own_dir "$cr_run"; } || continue
    cr_beat=$(stat -c %Y "$cr_run/heartbeat" 2>/dev/null || stat -c %Y "$cr_run")
    [ $((cr_now - cr_beat)) -ge "$cr_stale" ] || continue
    cr_stop_run lease
    printf '@@catalyst-sweep stopped tag=%s\n' "$cr_tag"
  done
done
