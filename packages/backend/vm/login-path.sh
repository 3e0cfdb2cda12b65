# shellcheck shell=sh
# Where the user's login+interactive shell finds claude (host/ssh/ssh-preflight.ts, when nothing else found it):
# `/bin/sh -c "<this>" catalyst-login-path`, run through the run wrapper. Prints `@@CMD=<path>`. The inner command
# works in bash, zsh and fish (ssh-field-notes.md §9); `-i` in a session without a tty only complains on stderr.

# The inner command is the login shell's to expand, not this one's.
# shellcheck disable=SC2016
cr_p=$("$SHELL" -lic 'echo "@@PATH=$PATH"' </dev/null 2>/dev/null | sed -n 's/^@@PATH=//p' | tail -n 1)
cr_c=$(
  PATH=$cr_p
  command -v claude 2>/dev/null
) && printf '@@CMD=%s\n' "$cr_c"
exit 0
