/**
 * What `catalyst shell` has printed of a terminal's output, its tail as long as the server's scrollback (256 KiB,
 * docs/protocol.md): after a re-attach the server replays its scrollback, which overlaps what was printed before
 * the drop. A person's terminal cannot be cleared and redrawn as the page's xterm is, so only the part not printed
 * yet is written (`unseenPartOf`).
 */
export const SCROLLBACK_BYTES = 256 * 1024;

export class SeenOutput {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(maxBytes = SCROLLBACK_BYTES) {
    this.#maxBytes = maxBytes;
  }

  append(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // Whole chunks are dropped only while the rest still holds maxBytes.
    for (let oldest = this.#chunks[0]; oldest !== undefined; oldest = this.#chunks[0]) {
      if (this.#bytes - oldest.length < this.#maxBytes) break;
      this.#chunks.shift();
      this.#bytes -= oldest.length;
    }
  }

  /**
   * The replay (a byte suffix of all the terminal printed, as `terminals/core/scrollback.ts` keeps it) from where what was
   * seen ends: the longest start of the replay that is also the end of what was seen is skipped (KMP, linear in
   * both). With no overlap (more output while away than the scrollback holds) it is all new.
   */
  unseenPartOf(replay: Buffer): Buffer {
    const seen = this.#tail();
    if (replay.length === 0 || seen.length === 0) return replay;
    const fallback = prefixFunction(replay);
    let matched = 0;
    for (const byte of seen) {
      if (matched === replay.length) matched = fallback[matched - 1] ?? 0;
      while (matched > 0 && replay[matched] !== byte) matched = fallback[matched - 1] ?? 0;
      if (replay[matched] === byte) matched += 1;
    }
    return replay.subarray(matched);
  }

  #tail(): Buffer {
    const all = Buffer.concat(this.#chunks);
    return all.length > this.#maxBytes ? all.subarray(all.length - this.#maxBytes) : all;
  }
}

/** For each i, the length of the longest proper prefix of bytes[0..i] that is also its suffix. */
function prefixFunction(bytes: Buffer): number[] {
  const result = new Array<number>(bytes.length).fill(0);
  let length = 0;
  for (let at = 1; at < bytes.length; at += 1) {
    while (length > 0 && bytes[at] !== bytes[length]) length = result[length - 1] ?? 0;
    if (bytes[at] === bytes[length]) length += 1;
    result[at] = length;
  }
  return result;
}
