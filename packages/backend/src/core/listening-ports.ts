/**
 * Which TCP ports the processes of some runs listen on (issue 14): a `/bin/sh` script for the host, run through the
 * run wrapper (host-command.ts) with the run tags as its arguments. For each process of this user that carries one
 * of the tags (CATALYST_RUN_TAG, as run-wrapper-shell.ts finds them), its sockets' inodes from `/proc/<pid>/fd`;
 * then the sockets in the LISTEN state (`0A`) of `/proc/net/tcp` and `/proc/net/tcp6` with one of those inodes.
 * Prints `<tag> <port>` lines.
 */
export const LISTENING_PORTS_SCRIPT = `
for cr_tag in "$@"; do
  for cr_f in $(grep -laszxF "CATALYST_RUN_TAG=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    for cr_l in "\${cr_f%/environ}"/fd/*; do
      cr_t=$(readlink "$cr_l" 2>/dev/null) || continue
      case $cr_t in
        'socket:['*']') cr_i=\${cr_t#socket:[}; printf '%s %s\\n' "$cr_tag" "\${cr_i%]}" ;;
      esac
    done
  done
done | awk '
  function hex(s,   i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789ABCDEF", toupper(substr(s, i, 1))) - 1; return n }
  FILENAME == "-" { tag[$2] = $1; next }
  $4 == "0A" && ($10 in tag) { split($2, a, ":"); key = tag[$10] " " hex(a[2]); if (!(key in seen)) { seen[key] = 1; print key } }
' - /proc/net/tcp /proc/net/tcp6 2>/dev/null
exit 0
`;

export interface TaggedPort {
  tag: string;
  port: number;
}

export function parseListeningPorts(stdout: string): TaggedPort[] {
  return stdout.split('\n').flatMap((line) => {
    const match = /^([a-z0-9-]{8,64}) (\d{1,5})$/.exec(line);
    const port = Number(match?.[2]);
    if (match?.[1] === undefined || !(port >= 1 && port <= 65_535)) return [];
    return [{ tag: match[1], port }];
  });
}
