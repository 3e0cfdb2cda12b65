/**
 * A terminal's recent output, bounded (issue 31): replayed to a page that attaches again after a dropped socket.
 * Whole chunks are kept and the oldest dropped, the newest cut to its tail when it alone is too large; a cut may
 * split an escape sequence or a character, which xterm shows as one odd glyph at the top.
 */
export class Scrollback {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  append(chunk: Uint8Array): void {
    const kept = chunk.length > this.#maxBytes ? chunk.subarray(chunk.length - this.#maxBytes) : chunk;
    this.#chunks.push(Buffer.from(kept));
    this.#bytes += kept.length;
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#chunks.shift();
      if (oldest === undefined) break;
      this.#bytes -= oldest.length;
    }
  }

  get size(): number {
    return this.#bytes;
  }

  contents(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
