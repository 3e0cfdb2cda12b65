# shellcheck shell=sh
# HostFiles.readWithin on a host (issue 25, findings 2 and 10; core/read-within-shell.ts reads what it prints):
# `/bin/sh -c "<this>" catalyst-read <marker> <root> <path> <most bytes>`. It resolves <path> (relative, checked by
# core/project-path.ts; '' is the root) inside <root> (absolute), checks it stays inside the root, and reads what it
# checked, in one step, so nothing on the VM can swap a folder for a symlink between a check and a read made in
# separate round trips. Anything but a regular file or a directory (a FIFO, a socket, a device) is reported and never
# opened: an open() of a FIFO waits for a writer.
# How: `cd -P` into a directory pins it (the shell's cwd is that directory, whatever its path becomes), and `pwd -P`
# then says where it really is; the last name is tested with lstat (`[ -h ]`, `[ -f ]`, `[ -d ]`) and a file is read
# by GNU dd with O_NOFOLLOW|O_NONBLOCK, so a name swapped after the test is neither followed (no symlink out) nor
# waited on (a FIFO opens at once, and its inode then differs: exit 4). Only root can make a device node, so in a
# project's directory the swap has nothing else to offer. A listing is GNU find's, which lstats and never opens an
# entry.
# Output on stdout after <marker> (random per call: a login shell's rc files may print before the script runs,
# ssh-field-notes.md §9), fields ending in NUL: `err` and a reason (missing, denied, root, outside, changed), or
# `ok`, a kind and the real path inside the root, then per kind: `file` its `inode/size/mtime` and its first bytes;
# `dir` one `type/size/mtime/name` field per entry; `other` its type (`stat -c %F`). It ends with the marker and a
# last word (0, `changed`, or what failed), so no exit status is needed: ssh2 drops an exit status that arrives with
# the channel's last bytes, before anyone listens.

cr_mark=$1 cr_root=$2 cr_rel=$3 cr_max=$4
printf '%s\0' "$cr_mark"
cr_say() { printf '%s\0' "$@"; }
cr_done() {
  printf '%s\0%s\0' "$cr_mark" "$1"
  exit 0
}
cr_end() {
  cr_say "$@"
  cr_done 0
}
# pwd -P, keeping a name's trailing newline (a `$(…)` drops it; the `/` after it is cut off again).
cr_here() { cr_h=$(pwd -P && echo /) && cr_h=${cr_h%?/}; }
# The root: its parent resolved, then its own name entered; if that name is a symlink, pwd -P is elsewhere.
cr_name=${cr_root##*/}
cd -P -- "${cr_root%/*}/" 2>/dev/null || cr_end err missing
cr_here
cr_parent=${cr_h%/}
if ! cd -P -- "./$cr_name" 2>/dev/null; then
  [ -d "./$cr_name" ] && cr_end err denied
  [ -e "./$cr_name" ] && cr_end err root
  cr_end err missing
fi
cr_here
cr_top=$cr_h
[ "$cr_top" = "$cr_parent/$cr_name" ] || cr_end err root
cr_real=$cr_top
# readlink -e: every part must exist; a dangling symlink is missing (there now: it changed meanwhile). The real path
# is then entered as a directory plus a last name, each checked again where it is, so a change since readlink is
# `changed`.
if [ -n "$cr_rel" ]; then
  if ! cr_real=$(readlink -e -- "./$cr_rel" && echo /); then
    [ -e "./$cr_rel" ] && cr_end err changed
    cr_end err missing
  fi
  cr_real=${cr_real%?/}
fi
case $cr_real in
  "$cr_top") cr_in= ;;
  "$cr_top"/*) cr_in=${cr_real#"$cr_top"/} ;;
  *) cr_end err outside ;;
esac
cr_base=.
if [ -n "$cr_in" ]; then
  cd -P -- "${cr_real%/*}/" 2>/dev/null || cr_end err changed
  cr_here
  [ "$cr_h" = "${cr_real%/*}" ] || cr_end err changed
  cr_base=./${cr_real##*/}
fi
if [ -h "$cr_base" ]; then
  cr_end err changed
elif [ -d "$cr_base" ]; then
  cd -P -- "$cr_base" 2>/dev/null || cr_end err denied
  cr_here
  [ "$cr_h" = "$cr_real" ] || cr_end err changed
  { [ -r . ] && [ -x . ]; } || cr_end err denied
  cr_say ok dir "$cr_in"
  find . -mindepth 1 -maxdepth 1 -printf '%y/%s/%T@/%P\0'
  cr_done $?
elif [ -f "$cr_base" ]; then
  [ -r "$cr_base" ] || cr_end err denied
  cr_st=$(stat -c '%i/%s/%Y' -- "$cr_base") || cr_end err changed
  cr_say ok file "$cr_in" "$cr_st"
  # count_bytes makes count a byte count; nonblock is a no-op on a regular file; exit 3 is a failed read.
  dd if="$cr_base" iflag=nofollow,nonblock,count_bytes bs=65536 count="$cr_max" status=none || cr_done dd
  [ "$(stat -c %i -- "$cr_base" 2>/dev/null)" = "${cr_st%%/*}" ] || cr_done changed
  cr_done 0
else
  [ -e "$cr_base" ] || cr_end err changed
  cr_end ok other "$cr_in" "$(stat -c %F -- "$cr_base" 2>/dev/null)"
fi
