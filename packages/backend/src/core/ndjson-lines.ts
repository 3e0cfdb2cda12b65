import { Buffer, isAscii, isUtf8, transcode } from 'node:buffer';

/**
 * Splits the CLI's stdout into lines on the byte 0x0A (claude-cli-protocol.md §1: NDJSON, UTF-8, `\n` line ends,
 * lines unbounded: a 10.6 MB line was observed). Chunks arrive at arbitrary byte offsets (up to 32 KiB over SSH),
 * so a line, and a UTF-8 character, may span any number of chunks.
 *
 * Splitting on bytes rather than on decoded text is what makes multi-byte characters safe: 0x0A never occurs
 * inside a UTF-8 sequence, so text cut just before an LF byte holds whole characters and decodes on its own.
 *
 * Cost is linear in the stream size however long a line is. Each chunk is handled in three parts:
 * - its head, up to its first LF, ends a line begun in earlier chunks: the pieces of such a line are kept as
 *   views, copied once when the line ends into a buffer that is reused (see SCRATCH_MAX_BYTES), and decoded;
 * - the lines it holds whole, up to its last LF, are decoded in ONE call and cut apart as strings. Decoding line
 *   by line cost about 0.2 µs a call whatever the size, a sixth of JSON.parse on a 1 KB line; V8 makes a `slice`
 *   of 13 characters or more a view, which JSON.parse reads in place;
 * - its tail, after its last LF, is kept as a view.
 * Each byte is scanned for 0x0A at most twice (forwards, then backwards from the chunk's end).
 *
 * node:buffer (no I/O) is used for speed, measured with scripts/bench-parse on Node 20: `Buffer#indexOf` is a
 * memchr, about ten times faster than `Uint8Array#indexOf`, and decoding by offsets needs no view per line.
 */

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * A line that spans chunks is joined into a buffer kept for the next such line, up to this size. A join into
 * fresh memory pays a page fault per 4 KiB: on 4 MB lines Buffer.concat cost a fifth as much as JSON.parse, a
 * copy into reused memory under 3 %. A longer line is joined into memory of its own, released with the line, so
 * a parser keeps at most this much. (Keeping a bigger buffer, even through a WeakRef, showed no steady gain on
 * 16 MB lines: there, decoding into a fresh string costs as many page faults and dominates.)
 */
const SCRATCH_MAX_BYTES = 4 * 1024 * 1024;
const SCRATCH_MIN_BYTES = 64 * 1024;
/** Below this, the extra native calls of the fast decoders cost more than they save (see decodeBytes). */
const FAST_DECODE_MIN_BYTES = 2 * 1024;
const LF = 0x0a;
/** As a byte and as a UTF-16 code unit. */
const CR = 0x0d;

export interface NdjsonLineSplitterOptions {
  /**
   * A complete, non-empty line without its `\n` (and without one trailing `\r`, tolerated for CRLF), decoded as
   * UTF-8 with invalid bytes replaced by U+FFFD. `byteLength` is the size of that content in bytes. The text may
   * be a V8 slice of the text of the whole chunk: keep a copy, not the text itself, of a part meant to outlive
   * the callback (as parseStreamLine does for its sample).
   */
  readonly onLine: (text: string, byteLength: number) => void;
  /**
   * A line whose content exceeded `maxLineBytes`. Its bytes were discarded as they arrived (bounded memory);
   * `byteLength` is its full size, reported when the line ends.
   */
  readonly onLineTooLong: (byteLength: number, limitBytes: number) => void;
  /** Default {@link DEFAULT_MAX_LINE_BYTES} (64 MiB), far above the largest line seen (§1). */
  readonly maxLineBytes?: number;
}

export interface NdjsonLineSplitter {
  /**
   * Feeds the next bytes of the stream. The splitter may keep a view of `chunk` until its line ends, so the
   * caller must not reuse the chunk's memory (Node streams hand each chunk over for good). An exception thrown by
   * a callback propagates out of `push`, and the rest of that chunk is then lost.
   */
  push(chunk: Uint8Array): void;
  /** Reports a final line that has no `\n`. Pushing after `end()` is a programming error and throws. */
  end(): void;
}

export function createNdjsonLineSplitter(options: NdjsonLineSplitterOptions): NdjsonLineSplitter {
  return new LineSplitter(options);
}

export function validateMaxLineBytes(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`maxLineBytes must be a positive integer, got ${value}`);
  }
  return value;
}

class LineSplitter implements NdjsonLineSplitter {
  readonly #onLine: NdjsonLineSplitterOptions['onLine'];
  readonly #onLineTooLong: NdjsonLineSplitterOptions['onLineTooLong'];
  readonly #maxLineBytes: number;
  /** Views of the current line's bytes seen so far, in order; empty while discarding. */
  #parts: Buffer[] = [];
  /** Bytes of the current line seen so far, kept or discarded, including a possible trailing `\r`. */
  #heldBytes = 0;
  #lastByte = -1;
  #isDiscarding = false;
  #isEnded = false;
  /** Where lines that span chunks are joined; grows up to SCRATCH_MAX_BYTES and is then kept. */
  #scratch = Buffer.alloc(0);

  constructor(options: NdjsonLineSplitterOptions) {
    this.#onLine = options.onLine;
    this.#onLineTooLong = options.onLineTooLong;
    this.#maxLineBytes = validateMaxLineBytes(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  }

  push(chunk: Uint8Array): void {
    if (this.#isEnded) throw new Error('NdjsonLineSplitter: push() after end()');
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    if (this.#heldBytes > 0) {
      const newline = bytes.indexOf(LF);
      if (newline === -1) {
        if (bytes.length > 0) this.#hold(bytes);
        return;
      }
      if (newline > 0) this.#hold(bytes.subarray(0, newline));
      start = newline + 1;
      this.#emitHeld();
    }
    const lastNewline = bytes.lastIndexOf(LF);
    if (lastNewline >= start) {
      this.#emitWholeLines(bytes, start, lastNewline);
      start = lastNewline + 1;
    }
    if (start < bytes.length) this.#hold(bytes.subarray(start));
  }

  end(): void {
    if (this.#isEnded) return;
    this.#isEnded = true;
    if (this.#heldBytes > 0) this.#emitHeld();
  }

  #hold(bytes: Buffer): void {
    this.#heldBytes += bytes.length;
    this.#lastByte = bytes[bytes.length - 1] ?? this.#lastByte;
    if (this.#isDiscarding) return;
    // One byte of slack: the last byte held may be the `\r` of a CRLF, which does not count.
    if (this.#heldBytes > this.#maxLineBytes + 1) {
      this.#parts = [];
      this.#isDiscarding = true;
      return;
    }
    this.#parts.push(bytes);
  }

  #emitHeld(): void {
    const parts = this.#parts;
    const heldBytes = this.#heldBytes;
    const wasDiscarding = this.#isDiscarding;
    const endsWithCr = this.#lastByte === CR;
    // Reset before the callback runs, so a throwing callback leaves the splitter consistent.
    this.#parts = [];
    this.#heldBytes = 0;
    this.#lastByte = -1;
    this.#isDiscarding = false;
    if (wasDiscarding) {
      this.#onLineTooLong(endsWithCr ? heldBytes - 1 : heldBytes, this.#maxLineBytes);
      return;
    }
    const [first] = parts;
    const line = parts.length === 1 && first ? first : this.#join(parts, heldBytes);
    this.#emitLine(line, 0, line.length);
  }

  /** The parts as one Buffer: the scratch buffer, valid until the next join, unless the line is too long for it. */
  #join(parts: readonly Buffer[], byteLength: number): Buffer {
    if (byteLength > SCRATCH_MAX_BYTES) return Buffer.concat(parts, byteLength);
    if (byteLength > this.#scratch.length) {
      const size = Math.max(SCRATCH_MIN_BYTES, this.#scratch.length * 2, byteLength);
      this.#scratch = Buffer.allocUnsafeSlow(Math.min(size, SCRATCH_MAX_BYTES));
    }
    let offset = 0;
    for (const part of parts) offset += part.copy(this.#scratch, offset);
    return this.#scratch.subarray(0, byteLength);
  }

  /** One line, `bytes[start, end)` without its `\n`. */
  #emitLine(bytes: Buffer, start: number, end: number): void {
    const contentEnd = end > start && bytes[end - 1] === CR ? end - 1 : end;
    const byteLength = contentEnd - start;
    if (byteLength === 0) return;
    if (byteLength > this.#maxLineBytes) {
      this.#onLineTooLong(byteLength, this.#maxLineBytes);
      return;
    }
    this.#onLine(decodeBytes(bytes, start, contentEnd), byteLength);
  }

  /** The lines in `bytes[start, end)`, which ends just before an LF byte. */
  #emitWholeLines(bytes: Buffer, start: number, end: number): void {
    // Only a chunk bigger than the ceiling can hold an over-long line; split it on bytes, never decoding that line.
    if (end - start > this.#maxLineBytes) this.#emitLinesOneByOne(bytes, start, end);
    else this.#emitLinesOfText(bytes, start, end);
  }

  #emitLinesOneByOne(bytes: Buffer, start: number, end: number): void {
    let lineStart = start;
    for (let newline = bytes.indexOf(LF, start); newline !== -1 && newline < end;) {
      this.#emitLine(bytes, lineStart, newline);
      lineStart = newline + 1;
      newline = bytes.indexOf(LF, lineStart);
    }
    this.#emitLine(bytes, lineStart, end);
  }

  /** Decodes `bytes[start, end)` in one call, then cuts the text at each `\n`. */
  #emitLinesOfText(bytes: Buffer, start: number, end: number): void {
    const text = decodeBytes(bytes, start, end);
    // Whatever decodes from some bytes has at most as many UTF-16 code units as bytes (an invalid byte gives one
    // U+FFFD), so equal totals mean that in every line, character offsets are byte offsets.
    const isOneBytePerChar = text.length === end - start;
    let from = 0;
    let byteFrom = start;
    for (;;) {
      const newline = text.indexOf('\n', from);
      const to = newline === -1 ? text.length : newline;
      let byteTo = start + to;
      if (!isOneBytePerChar) byteTo = newline === -1 ? end : bytes.indexOf(LF, byteFrom);
      this.#emitText(text, from, to, byteTo - byteFrom);
      if (newline === -1) return;
      from = newline + 1;
      byteFrom = byteTo + 1;
    }
  }

  /** One line, `text[from, to)` without its `\n`, of `byteLength` bytes (at most the ceiling). */
  #emitText(text: string, from: number, to: number, byteLength: number): void {
    let contentEnd = to;
    let contentBytes = byteLength;
    if (to > from && text.charCodeAt(to - 1) === CR) {
      contentEnd--;
      contentBytes--;
    }
    if (contentEnd === from) return;
    this.#onLine(contentEnd - from === text.length ? text : text.slice(from, contentEnd), contentBytes);
  }
}

/**
 * UTF-8 bytes to text, invalid bytes becoming U+FFFD. On Node 20, V8's UTF-8 decoder runs at about 2 GB/s on
 * ASCII and under 1 GB/s past the first non-ASCII byte, as slow as JSON.parse itself. simdutf's `isAscii` and
 * `isUtf8` tell at tens of GB/s: ASCII decodes as latin1, a plain copy into a one-byte string, and valid UTF-8
 * transcodes (ICU) into a transient UTF-16 buffer that is copied into a two-byte string, together about 2.5 times
 * as fast as V8's decoder. Invalid UTF-8, which transcode would reject, is left to V8.
 */
function decodeBytes(bytes: Buffer, start: number, end: number): string {
  if (end - start >= FAST_DECODE_MIN_BYTES) {
    const view = bytes.subarray(start, end);
    if (isAscii(view)) return bytes.toString('latin1', start, end);
    if (isUtf8(view)) {
      const utf16 = transcode(view, 'utf8', 'utf16le');
      return utf16.toString('utf16le', 0, utf16.length);
    }
  }
  return bytes.toString('utf8', start, end);
}
