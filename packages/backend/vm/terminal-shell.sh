# shellcheck shell=sh
# The script behind a terminal (issue 31; terminals/core/terminal-shell.ts renders its call), the same on both hosts:
# `<shell> -c "<this>" catalyst-terminal <cols> <rows> <cwd>` on a pty. It turns echo off, says it is ready with its
# tty's name (the marker, TERMINAL_MARKER), reads the run tag as its first line (so the tag is in no command line,
# as for runs: run-wrapper.sh), turns echo back on, goes to the project folder, makes the terminal's run dir and
# becomes the person's login shell with CATALYST_RUN_TAG in its environment. Everything the shell starts inherits
# the tag, so the kill script finds it. Echo is off before the marker is printed, and the tag is written only after
# the marker is read, so the tag is never echoed.
# The run dir (lib/run-dir.sh) holds `terminal`, the shell's pid (`exec` keeps it): the kill script removes the dir
# when the terminal is closed; when the backend is killed instead, the pty's hangup ends the shell but not what it
# shielded from the hangup (nohup, setsid), and the start-up sweep (run-sweep.sh) finds the dir of a shell that is
# gone and stops the rest by the tag. No dir (no writable root) only means no sweep: the terminal still opens.

cr_uid='' cr_run=''
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/run-dir.sh
. ./lib/run-dir.sh
stty -echo 2>/dev/null
stty cols "$1" rows "$2" 2>/dev/null
printf '@@catalyst-terminal %s\n' "$(tty)"
IFS= read -r cr_tag
stty echo 2>/dev/null
cr_is_tag "$cr_tag" || exit 2
cd -- "$3" || exit 1
cr_read_uid
! cr_make_run || printf '%s\n' "$$" >"$cr_run/terminal"
CATALYST_RUN_TAG=$cr_tag
export CATALYST_RUN_TAG
cr_shell=${CATALYST_TERMINAL_SHELL:-${SHELL:-/bin/sh}}
unset cr_tag cr_run cr_uid CATALYST_TERMINAL_SHELL
SHELL=$cr_shell
export SHELL
exec "$cr_shell" -l -i
