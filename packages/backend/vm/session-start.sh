# shellcheck shell=sh
# Creates a session's dir and starts its supervisor S detached (issue 11; core/vm-job-shell.ts):
# `/bin/sh -c "<this>" catalyst-session <S's shell> <S's script> <S's arguments>…` (session-supervisor.sh), the
# session id the first line of stdin. Every fd of S is a file or /dev/null, so the channel that started it closes at
# once: sshd keeps a channel while a child holds it (ssh-field-notes.md §2). Prints `@@catalyst-attach started` once
# S has started the job; exit 3 when the session dir exists already, 6 when the disk that holds it is full.
# The session dir holds `in` (FIFO), `out`, `err`, `sup` and `job` (pids), `state` (`turn` or `idle`, set by
# Catalyst through the attach script), `heartbeat` (touched through it), `lock` (flock: one attacher at a time), and
# `status` (`code=<n> reason=<why>`, written last, when S is done), `holder` (the attacher holding the lock: its
# pid, its follower, its children's pids), and what S writes at the start so it can still say "disk full" when
# nothing more can be written (`claim-disk_full`, `status.res`).

cr_shell=$1 cr_sup_script=$2
shift 2
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
umask 077
cr_read_tag || {
  printf 'catalyst-session: no valid session id on stdin\n' >&2
  exit 2
}
cr_session_root
[ -d "$cr_root" ] || mkdir -m 700 "$cr_root" 2>/dev/null
cr_own_dir "$cr_root" || {
  printf 'catalyst-session: %s is not a private directory of this user\n' "$cr_root" >&2
  exit 2
}
chmod 700 "$cr_root"
cr_full "$cr_root" && {
  printf 'catalyst-session: no space left on the disk that holds %s\n' "$cr_root" >&2
  exit 6
}
cr_run=$cr_root/$cr_tag
mkdir -m 700 "$cr_run" 2>/dev/null || {
  printf 'catalyst-session: the session exists already\n' >&2
  exit 3
}
command -v setsid >/dev/null 2>&1 || {
  printf "catalyst-session: setsid is missing\n" >&2
  rm -rf "$cr_run"
  exit 2
}
mkfifo -m 600 "$cr_run/in" || {
  rm -rf "$cr_run"
  exit 2
}
: >"$cr_run/out"
: >"$cr_run/err"
printf idle >"$cr_run/state"
: >"$cr_run/heartbeat"
# Written now, while there is room: what S needs to say "disk full" once there is none (a claim to link to `reason`,
# and padding that the status line overwrites in place).
printf 'disk_full\n' >"$cr_run/claim-disk_full"
printf '%63s\n' '' >"$cr_run/status.res"
cr_tag=$cr_tag cr_run=$cr_run setsid "$cr_shell" -c "$cr_sup_script" catalyst-session "$@" </dev/null >/dev/null 2>&1 &
printf '%s\n' "$!" >"$cr_run/sup"
cr_i=0
while [ ! -s "$cr_run/job" ] && [ ! -e "$cr_run/status" ] && [ "$cr_i" -lt 100 ]; do
  sleep 0.05
  cr_i=$((cr_i + 1))
done
printf '@@catalyst-attach started\n'
