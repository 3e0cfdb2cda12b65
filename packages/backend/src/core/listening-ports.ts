/**
 * Which TCP ports the processes of some runs listen on, and on which address (issue 14; issue 25, finding 6): a
 * `/bin/sh` script for the host, run through the run wrapper (host-command.ts) with the run tags on its stdin (one
 * line, `renderTagsInput`), never its arguments: `ps` shows every user of the VM a command line.
 * For each process of this user that carries one of the tags (CATALYST_RUN_TAG, as run-wrapper-shell.ts finds
 * them), its sockets' inodes from `/proc/<pid>/fd`; then the sockets in the LISTEN state (`0A`) of `/proc/net/tcp`
 * and `/proc/net/tcp6` with one of those inodes. Prints the host's byte order first (`/proc/net/tcp*` print each
 * 32-bit word of an address in it), then `<tag> <port> <address as /proc prints it>` lines.
 */
export const LISTENING_PORTS_SCRIPT = `
IFS= read -r cr_in || cr_in=
cr_in=\${cr_in#*'"tags":"'}
set -f
set -- \${cr_in%%'"'*}
set +f
for cr_tag in "$@"; do
  case $cr_tag in '' | *[!a-z0-9-]*) echo "catalyst-ports: not a run tag" >&2; exit 2 ;; esac
done
case $(printf '\\001\\000\\000\\000' | od -An -tu4 | tr -d ' ') in
  1) echo 'byte-order little' ;;
  16777216) echo 'byte-order big' ;;
esac
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
  $4 == "0A" && ($10 in tag) { split($2, a, ":"); key = tag[$10] " " hex(a[2]) " " a[1]; if (!(key in seen)) { seen[key] = 1; print key } }
' - /proc/net/tcp /proc/net/tcp6 2>/dev/null
exit 0
`;

/** The script's one stdin line: the tags, space-separated, in a JSON object (RunHandle.writeLine takes objects). */
export function renderTagsInput(tags: readonly string[]): string {
  for (const tag of tags) {
    if (!/^[a-z0-9-]{8,64}$/.test(tag)) throw new Error(`not a run tag: ${JSON.stringify(tag)}`);
  }
  return JSON.stringify({ tags: tags.join(' ') });
}

export interface TaggedListener {
  tag: string;
  port: number;
  /** The local address it holds, as text: `127.0.0.1`, `::1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`, … */
  address: string;
}

/**
 * The script's output. Without a byte order it knows (a host whose `od` printed something else), no address can be
 * read, so none is: nothing is forwarded rather than something forwarded to a wrong address.
 */
export function parseListeningPorts(stdout: string): TaggedListener[] {
  const lines = stdout.split('\n');
  const order = /^byte-order (little|big)$/.exec(lines[0] ?? '')?.[1];
  if (order === undefined) return [];
  return lines.slice(1).flatMap((line) => {
    const match = /^([a-z0-9-]{8,64}) (\d{1,5}) ([0-9A-F]{8}|[0-9A-F]{32})$/.exec(line);
    const port = Number(match?.[2]);
    if (match?.[1] === undefined || match[3] === undefined || !(port >= 1 && port <= 65_535)) return [];
    return [{ tag: match[1], port, address: formatAddress(bytesOf(match[3], order === 'little')) }];
  });
}

/**
 * Where a connection to a listener on `address` goes: the address itself, or for a wildcard the loopback address
 * of its family (which the wildcard holds too: nobody else can bind it on that port while the wildcard is bound).
 */
export function forwardAddressOf(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/**
 * The address to forward `port` to among the listeners of some tags, or undefined when none of them listens on it.
 * Several (an app on 127.0.0.1 and on ::1): loopback before a wildcard before any other address, all the app's own.
 */
export function chooseForwardAddress(listeners: readonly TaggedListener[], port: number): string | undefined {
  const rank = (address: string) => {
    if (address === '127.0.0.1' || address === '::1') return 0;
    if (address === '0.0.0.0' || address === '::') return 1;
    return 2;
  };
  const candidates = listeners
    .filter((listener) => listener.port === port)
    .map((listener) => listener.address)
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return candidates[0] === undefined ? undefined : forwardAddressOf(candidates[0]);
}

/** `/proc/net/tcp*` hex: 32-bit words, each in the host's byte order. */
function bytesOf(hex: string, isLittleEndian: boolean): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const pairs = [0, 2, 4, 6].map((at) => Number.parseInt(hex.slice(word + at, word + at + 2), 16));
    bytes.push(...(isLittleEndian ? pairs.reverse() : pairs));
  }
  return bytes;
}

function formatAddress(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const isMapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 255 && bytes[11] === 255;
  if (isMapped) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = Array.from(
    { length: 8 },
    (_, index) => ((bytes[2 * index] ?? 0) << 8) | (bytes[2 * index + 1] ?? 0),
  );
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes `::`.
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > best.length) best = { start, length };
  }
  const text = groups.map((group) => group.toString(16));
  if (best.start < 0) return text.join(':');
  const head = text.slice(0, best.start).join(':');
  const tail = text.slice(best.start + best.length).join(':');
  return `${head}::${tail}`;
}
