# shellcheck shell=sh
# Every session of this user, one line each (issue 11; core/vm-job-shell.ts): `<id> <alive 0|1> <out bytes>
# <err bytes> <held> <status or ->`, where `held` is `-` when no attacher holds the session, else the age of its
# heartbeat in seconds. A dead supervisor without a status is a VM that rebooted (or a SIGKILLed supervisor): `-`
# with alive 0. `/bin/sh -c "<this>" catalyst-session-list`.

# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
cr_session_root
cr_own_dir "$cr_root" || exit 0
for cr_run in "$cr_root"/*; do
  cr_own_dir "$cr_run" || continue
  cr_tag=${cr_run##*/}
  case $cr_tag in '' | *[!a-z0-9-]*) continue ;; esac
  cr_alive=0
  # S writes status last: with it, S is over (a zombie S may not be reaped yet).
  [ -e "$cr_run/status" ] || { cr_sup_alive "$cr_run/sup" && cr_alive=1; }
  cr_held=-
  if [ -e "$cr_run/lock" ] && ! flock -n "$cr_run/lock" true 2>/dev/null; then
    cr_now=$(date +%s)
    cr_age "$cr_run/heartbeat"
    cr_held=$cr_a
  fi
  cr_status=-
  [ -e "$cr_run/status" ] && read -r cr_status <"$cr_run/status"
  printf '%s %s %s %s %s %s\n' "$cr_tag" "$cr_alive" "$(stat -c %s "$cr_run/out" 2>/dev/null || echo 0)" \
    "$(stat -c %s "$cr_run/err" 2>/dev/null || echo 0)" "$cr_held" "$cr_status"
done
