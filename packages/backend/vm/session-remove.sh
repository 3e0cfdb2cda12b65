# shellcheck shell=sh
# Removes a session's files once its supervisor is gone (issue 11; core/vm-job-shell.ts); exit 5 while it lives:
# stop it first. `/bin/sh -c "<this>" catalyst-session-remove`, the session id the first line of stdin.

# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
cr_read_tag || exit 2
cr_session_dir || exit 0
[ -e "$cr_run/status" ] || { cr_sup_alive "$cr_run/sup" && exit 5; }
rm -rf "$cr_run"
