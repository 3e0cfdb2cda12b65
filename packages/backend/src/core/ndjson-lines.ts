import { Buffer, isAscii } from 'node:buffer';

/**
 * Splits the CLI's stdout into lines on the byte 0x0A (claude-cli-protocol.md §1: NDJSON, UTF-8, `\n` line ends,
 * lines unbounded: a 10.6 MB line was observed). Chunks arrive at arbitrary byte offsets (up to 32 KiB over SSH),
 * so a line, and a UTF-8 character, may span any number of chunks.
 *
 * Splitting on bytes rather than on decoded text is what makes multi-byte characters safe: 0x0A never occurs
 * inside a UTF-8 sequence, so each complete line holds whole characters and is decoded once, in one piece.
 *
 * Cost is linear in the stream size however long a line is: each byte is scanned for 0x0A once (only new bytes
 * are scanned), the pieces of a line that spans chunks are kept as a list of views and joined once when the line
 * ends, and a line that fits in one chunk is decoded straight from that chunk without a copy.
 *
 * node:buffer (no I/O) is used for speed, measured with scripts/bench-parse on Node 20: `Buffer#indexOf` is a
 * memchr, about ten times faster than `Uint8Array#indexOf`, and decoding by offsets needs no view per line.
 */

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Below this, the extra native call of the ASCII fast path costs more than it saves (see decodeLine). */
const ASCII_FAST_PATH_MIN_BYTES = 8 * 1024;
const LF = 0x0a;
const CR = 0x0d;

export interface NdjsonLineSplitterOptions {
  /**
   * A complete, non-empty line without its `\n` (and without one trailing `\r`, tolerated for CRLF), decoded as
   * UTF-8 with invalid bytes replaced by U+FFFD. `byteLength` is the size of that content in bytes.
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
    let newline = bytes.indexOf(LF);
    while (newline !== -1) {
      if (this.#heldBytes === 0) {
        this.#emit(bytes, start, newline);
      } else {
        if (newline > start) this.#hold(bytes.subarray(start, newline));
        this.#emitHeld();
      }
      start = newline + 1;
      newline = bytes.indexOf(LF, start);
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
    const line = parts.length === 1 && first ? first : Buffer.concat(parts, heldBytes);
    this.#emit(line, 0, line.length);
  }

  #emit(bytes: Buffer, start: number, end: number): void {
    const contentEnd = end > start && bytes[end - 1] === CR ? end - 1 : end;
    const byteLength = contentEnd - start;
    if (byteLength === 0) return;
    if (byteLength > this.#maxLineBytes) {
      this.#onLineTooLong(byteLength, this.#maxLineBytes);
      return;
    }
    this.#onLine(decodeLine(bytes, start, contentEnd), byteLength);
  }
}

/**
 * On Node 20, V8's UTF-8 decoder runs at about 2 GB/s on ASCII and under 1 GB/s past the first non-ASCII byte,
 * as slow as JSON.parse itself. Most big lines are pure ASCII: simdutf's `isAscii` tells at tens of GB/s, and
 * such bytes decode as latin1, a plain copy into a one-byte string. Invalid UTF-8 becomes U+FFFD.
 */
function decodeLine(bytes: Buffer, start: number, end: number): string {
  const isLong = end - start >= ASCII_FAST_PATH_MIN_BYTES;
  if (isLong && isAscii(bytes.subarray(start, end))) return bytes.toString('latin1', start, end);
  return bytes.toString('utf8', start, end);
}
