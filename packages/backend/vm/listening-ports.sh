# shellcheck shell=sh
# Which TCP ports the processes of some runs listen on, and on which address (issue 14; issue 25, finding 6):
# `/bin/sh -c "<this>" catalyst-ports`, run through the run wrapper (host-command.ts) with the run tags on its stdin
# (one line, previews/core/listening-ports.ts renderTagsInput), never its arguments: `ps` shows every user of the VM a command
# line. For each process of this user that carries one of the tags (CATALYST_RUN_TAG, as the run wrapper finds them),
# its sockets' inodes from /proc/<pid>/fd; then the sockets in the LISTEN state (0A) of /proc/net/tcp and
# /proc/net/tcp6 with one of those inodes. Prints the host's byte order first (/proc/net/tcp* print each 32-bit word
# of an address in it), then `<tag> <port> <address as /proc prints it>` lines.
IFS= read -r cr_in || cr_in=
cr_in=${cr_in#*'"tags":"'}
set -f
# The tags, split on spaces on purpose.
# shellcheck disable=SC2086
set -- ${cr_in%%'"'*}
set +f
for cr_tag in "$@"; do
  case $cr_tag in '' | *[!a-z0-9-]*)
    echo "catalyst-ports: not a run tag" >&2
    exit 2
    ;;
  esac
done
case $(printf '\001\000\000\000' | od -An -tu4 | tr -d ' ') in
  1) echo 'byte-order little' ;;
  16777216) echo 'byte-order big' ;;
esac
for cr_tag in "$@"; do
  # /proc/<pid>/environ paths: no spaces to split wrongly.
  # shellcheck disable=SC2013
  for cr_f in $(grep -laszxF "CATALYST_RUN_TAG=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    for cr_l in "${cr_f%/environ}"/fd/*; do
      cr_t=$(readlink "$cr_l" 2>/dev/null) || continue
      case $cr_t in
        'socket:['*']')
          cr_i=${cr_t#socket:[}
          printf '%s %s\n' "$cr_tag" "${cr_i%]}"
          ;;
      esac
    done
  done
done | awk '
  function hex(s,   i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789ABCDEF", toupper(substr(s, i, 1))) - 1; return n }
  FILENAME == "-" { tag[$2] = $1; next }
  $4 == "0A" && ($10 in tag) { split($2, a, ":"); key = tag[$10] " " hex(a[2]) " " a[1]; if (!(key in seen)) { seen[key] = 1; print key } }
' - /proc/net/tcp /proc/net/tcp6 2>/dev/null
exit 0
