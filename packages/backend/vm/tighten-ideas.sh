# shellcheck shell=sh
# Makes the ideas under $1 private (issue 25, finding 3): `/bin/sh -c "<this>" catalyst-tighten <ideas root>`, run by
# Catalyst at start-up (ideas/private-modes.ts). Folders and files an older Catalyst made with the umask's modes
# (0755, 0644) lose every permission of group and others (`go-rwx`): the root, each idea folder in it, and the files
# directly in each (not project/). The owner's own bits stay, so nothing read-only becomes writable. Symlinks are
# left alone (chmod would follow them), and so is a root that is missing or not a real directory. Every chmod is
# tried; a failure (a file of another user) is named on stderr and the exit status is 1.
set -u
if [ ! -d "$1" ] || [ -L "$1" ]; then exit 0; fi
cd "$1" || exit 1
cr_rc=0
chmod go-rwx . || cr_rc=1
for cr_d in idea-*; do
  if [ ! -d "$cr_d" ] || [ -L "$cr_d" ]; then continue; fi
  chmod go-rwx "$cr_d" || cr_rc=1
  for cr_f in "$cr_d"/* "$cr_d"/.[!.]* "$cr_d"/..?*; do
    if [ ! -f "$cr_f" ] || [ -L "$cr_f" ]; then continue; fi
    chmod go-rwx "$cr_f" || cr_rc=1
  done
done
exit "$cr_rc"
