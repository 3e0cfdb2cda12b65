# shellcheck shell=sh
# Out of band: stops a session (claims `cancel`), from any channel; its supervisor then writes its status (issue 11;
# core/vm-job-shell.ts). `/bin/sh -c "<this>" catalyst-session-stop <grace polls>`, the session id the first
# line of stdin.

cr_polls=$1
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
cr_read_tag || exit 2
cr_session_dir || exit 0
read -r cr_job <"$cr_run/job" 2>/dev/null
cr_claim cancel
cr_stop "$cr_job" "$cr_job"
