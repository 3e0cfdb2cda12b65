import { VM_SCRIPTS } from '../../core/vm-scripts.generated.ts';

/**
 * Which TCP ports the processes of some runs listen on, and on which address (issue 14; issue 25, finding 6): the
 * `/bin/sh` script packages/backend/vm/listening-ports.sh, run through the run wrapper with the run tags on its stdin
 * (renderTagsInput), never its arguments. It prints the host's byte order first, then `<tag> <port> <address as
 * /proc prints it>` lines (parseListeningPorts).
 */
export const LISTENING_PORTS_SCRIPT = VM_SCRIPTS['listening-ports'];

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
