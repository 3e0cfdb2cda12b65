# shellcheck shell=sh
# What the VM offers a run (ssh-field-notes.md §9; host/ssh/ssh-preflight.ts reads it): `/bin/sh -c "<this>"
# catalyst-preflight <configured claude path or ''>`, run through the run wrapper. sshd runs commands in a non-login
# shell, so ~/.profile and the end of ~/.bashrc (nvm, npm prefix) are not applied: hence the search. Prints `@@` lines:
# `@@PATH=` and `@@SHELL=` (sshd's), `@@CONFIG=ok` when the configured path is an executable file, `@@CMD=` what
# `command -v claude` finds, `@@KNOWN=` and `@@NVM=` each executable claude where installers put it, `@@MISSING=` each
# tool the run wrapper and the sessions need that is missing (flock and tail: the sessions'), `@@NOGIT=1` without git.

printf '@@PATH=%s\n' "$PATH"
printf '@@SHELL=%s\n' "$SHELL"
[ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ] && echo '@@CONFIG=ok'
cr_c=$(command -v claude 2>/dev/null) && printf '@@CMD=%s\n' "$cr_c"
for cr_p in "$HOME/.local/bin/claude" "$HOME/.claude/local/claude" "$HOME/.npm-global/bin/claude" \
  "$HOME/.volta/bin/claude" "$HOME/.bun/bin/claude" /usr/local/bin/claude; do
  [ -f "$cr_p" ] && [ -x "$cr_p" ] && printf '@@KNOWN=%s\n' "$cr_p"
done
for cr_p in "$HOME"/.nvm/versions/node/*/bin/claude; do
  [ -f "$cr_p" ] && [ -x "$cr_p" ] && printf '@@NVM=%s\n' "$cr_p"
done
[ -r /proc/self/environ ] || echo '@@MISSING=/proc'
for cr_t in setsid mkfifo grep stat sleep flock tail; do
  command -v "$cr_t" >/dev/null 2>&1 || printf '@@MISSING=%s\n' "$cr_t"
done
command -v git >/dev/null 2>&1 || echo '@@NOGIT=1'
exit 0
