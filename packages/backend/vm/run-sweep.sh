# shellcheck shell=sh
# Stops every run of this user whose heartbeat file is stale (its watchdog is gone or stuck), with `lease` as the
# reason, and removes run dirs no wrapper owns any more: those of a wrapper that was SIGKILLed. A terminal's dir
# (terminal-shell.sh) is stopped and removed once its shell is gone: what the shell left running goes by its tag.
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
    if [ -e "$cr_run/terminal" ]; then
      # A terminal's (terminal-shell.sh): over once its shell is gone (or a zombie), whatever its age. A shell that
      # has not exec'd yet does not carry the tag: a live one in a dir of 10 s or less is left alone.
      cr_sh=$(cr_pid_in "$cr_run/terminal")
      if [ -n "$cr_sh" ] && cr_stat "$cr_sh"; then
        # The fields, split on purpose: the state first.
        # shellcheck disable=SC2086
        set -- $cr_sf
        if [ "$1" != Z ]; then
          cr_ours "$cr_sh" && continue
          cr_made=$(stat -c %Y "$cr_run/terminal" 2>/dev/null) || continue
          [ $((cr_now - cr_made)) -gt 10 ] || continue
        fi
      fi
    else
      cr_beat=$(stat -c %Y "$cr_run/heartbeat" 2>/dev/null || stat -c %Y "$cr_run")
      [ $((cr_now - cr_beat)) -ge "$cr_stale" ] || continue
    fi
    cr_stop_run lease
    printf '@@catalyst-sweep stopped tag=%s\n' "$cr_tag"
  done
done
