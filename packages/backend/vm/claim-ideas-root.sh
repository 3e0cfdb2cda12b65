# shellcheck shell=sh
# Claims the ideas root $1 for Catalyst (issue 39, item 3), before it is used, made private or its .trash emptied:
# `/bin/sh -c "<this>" catalyst-claim <ideas root>`. A root that is missing is made (0700), one that holds the marker
# `.catalyst-ideas` is Catalyst's already; one that is empty, or holds only what Catalyst puts there (idea folders,
# named by an idea id, whatever their meta.json holds, and .trash: an older Catalyst's root), gets the marker.
# Anything else is someone's folder: its name goes to stderr and the exit status is 3, nothing is changed. A root
# that is a symbolic link (ideas kept on another disk) is judged by the folder it leads to.
set -u
cr_root=$1
cr_marker=.catalyst-ideas
umask 077
if [ ! -e "$cr_root" ]; then
  mkdir -p "$cr_root" || exit 1
  : >"$cr_root/$cr_marker" || exit 1
  exit 0
fi
if [ ! -d "$cr_root" ]; then
  printf '%s\n' 'is not a folder' >&2
  exit 3
fi
# Where it leads, symlinks resolved: never a folder of the system or one its users share, nor the home or one
# that holds it (the same list as core/ideas-root-rules.ts, which judges the path as written).
cr_real=$(cd -P -- "$cr_root" && pwd -P) || exit 1
case $cr_real in
  / | /tmp | /var/tmp | /dev/shm | /home | /Users | /root | /etc | /usr | /var | /opt | /srv | /mnt | /media | /run | \
    /bin | /sbin | /lib | /lib64 | /boot | /dev | /proc | /sys)
    printf 'leads to %s, a folder of the system\n' "$cr_real" >&2
    exit 3
    ;;
esac
case ${HOME:-/nonexistent}/ in
  "$cr_real"/*)
    printf 'leads to %s, which holds the home\n' "$cr_real" >&2
    exit 3
    ;;
esac
if [ -f "$cr_root/$cr_marker" ] && [ ! -L "$cr_root/$cr_marker" ]; then exit 0; fi
for cr_e in "$cr_root"/* "$cr_root"/.[!.]* "$cr_root"/..?*; do
  if [ ! -e "$cr_e" ] && [ ! -L "$cr_e" ]; then continue; fi
  cr_n=${cr_e##*/}
  if [ ! -L "$cr_e" ] && [ -d "$cr_e" ]; then
    case $cr_n in
      .trash) continue ;;
      idea-[a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9]) continue ;;
    esac
  fi
  printf 'holds %s, which Catalyst did not put there\n' "$cr_n" >&2
  exit 3
done
: >"$cr_root/$cr_marker" || exit 1
