/**
 * An HTTP answer's head as a browser reads it, for the preview server's WebSocket handshakes, which pass through
 * as raw bytes (preview-proxy.ts). Browsers are more lenient than the RFC: Chromium ends the head at the first
 * empty line, a line ending at `\n` with an optional `\r` before it (`HttpUtil::LocateEndOfHeaders`), splits
 * header lines at any run of `\r` and `\n`, and folds a line that starts with a space or a tab into the one before
 * (obs-fold); Firefox is alike. A filter that split on `\r\n` alone let `X: 1\nSet-Cookie: …` through (issue 25,
 * finding 8). So the head is read the browser's way and written back in the one unambiguous form: every line ended
 * by `\r\n`, no folding, no empty line but the last.
 *
 * Only a `101` head is passed on (`isSwitchingProtocols`): before it, an app may send interim answers (`100
 * Continue`, `103 Early Hints`), each a head of its own that a browser reads too, so a relay that rewrote the first
 * head and piped the rest raw let a second head's `Set-Cookie` through (issue 25).
 */

/** Past the head: `headEnd` is where its last line's text ends, `bodyStart` the first byte after the empty line. */
export interface HeadEnd {
  readonly headEnd: number;
  readonly bodyStart: number;
}

/** The end of the head in `bytes`, searched from `from` (what an earlier call already searched), else undefined. */
export function locateHeadEnd(bytes: Buffer, from = 0): HeadEnd | undefined {
  for (let index = Math.max(from, 0); index < bytes.length; index += 1) {
    if (bytes[index] !== 0x0a) continue;
    const next = bytes[index + 1] === 0x0d ? index + 2 : index + 1;
    if (bytes[next] === 0x0a) return { headEnd: index, bodyStart: next + 1 };
  }
  return undefined;
}

/**
 * The head (status line and header lines, without the empty line) as the browser would take it, without the
 * header lines `isDropped` names, each line ended by `\r\n`, then the empty line. `name` is lower-case and trimmed.
 */
export function rewriteHead(head: string, isDropped: (name: string, value: string) => boolean): string {
  const lines: string[] = [];
  for (const piece of head.split(/[\r\n]+/)) {
    if (piece === '') continue;
    const last = lines.length - 1;
    if (last >= 0 && (piece.startsWith(' ') || piece.startsWith('\t'))) {
      lines[last] = `${lines[last] ?? ''} ${piece.trimStart()}`;
    } else {
      lines.push(piece);
    }
  }
  const kept = lines.filter((line, index) => {
    const colon = line.indexOf(':');
    if (index === 0 || colon === -1) return true;
    return !isDropped(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1));
  });
  return `${kept.join('\r\n')}\r\n\r\n`;
}

/**
 * Whether a rewritten head's status line is `101`, the one answer a WebSocket handshake may pass on; strict, so
 * that nothing a browser could read as another status passes.
 */
export function isSwitchingProtocols(head: string): boolean {
  return /^HTTP\/1\.1 101(?: [^\r\n]*)?\r\n/.test(head);
}
