import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNdjsonLineSplitter } from './ndjson-lines.ts';

/**
 * The splitter decodes all the lines a chunk holds whole in one call and cuts the text apart (ndjson-lines.ts).
 * These tests hold it to what decoding each line alone gives, text and byteLength, for ASCII, non-ASCII and
 * invalid UTF-8, wherever the chunks are cut.
 */

type Emitted = { kind: 'line'; text: string; byteLength: number } | { kind: 'too_long'; byteLength: number };

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

function split(chunks: readonly Uint8Array[]): Emitted[] {
  const emitted: Emitted[] = [];
  const splitter = createNdjsonLineSplitter({
    onLine: (text, byteLength) => emitted.push({ kind: 'line', text, byteLength }),
    onLineTooLong: (byteLength) => emitted.push({ kind: 'too_long', byteLength }),
  });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return emitted;
}

function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, index) => bytes.subarray(bounds[index], end));
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

/** What the splitter must report, computed line by line: split on 0x0A, drop one `\r`, decode each line alone. */
function referenceSplit(bytes: Uint8Array): Emitted[] {
  const emitted: Emitted[] = [];
  let start = 0;
  while (start <= bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    let end = newline === -1 ? bytes.length : newline;
    if (end > start && bytes[end - 1] === 0x0d) end--;
    if (end > start) {
      const line = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
      emitted.push({ kind: 'line', text: line.toString('utf8'), byteLength: line.length });
    }
    if (newline === -1) break;
    start = newline + 1;
  }
  return emitted;
}

describe('createNdjsonLineSplitter decoding many lines at once', () => {
  // Texts long enough (over 2 KiB between a chunk's first and last LF) to take the fast decoders, mixing lines
  // that fit in a chunk, lines that span several, empty lines and CRLF.
  const pieces = ['ab', 'é', '€', '😀', '"\\n', '\r', '\n', '\r\n', 'x'.repeat(500), 'y'.repeat(3000)];

  it('reports the same text and byteLength as decoding each line alone, however the stream is cut', () => {
    const text = fc
      .array(fc.constantFrom(...pieces), { minLength: 10, maxLength: 80 })
      .map((parts) => parts.join(''));
    const cuts = fc.uniqueArray(fc.nat({ max: 60_000 }), { maxLength: 8 });
    fc.assert(
      fc.property(text, cuts, (sample, offsets) => {
        const bytes = bytesOf(sample);
        const sorted = offsets.filter((offset) => offset <= bytes.length).sort((a, b) => a - b);
        expect(split(cutAt(bytes, sorted))).toEqual(referenceSplit(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it('decodes invalid UTF-8 in a chunk of many lines as it would decode each line alone', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        Uint8Array.of(0x0a),
        Uint8Array.of(0x0d, 0x0a),
        Uint8Array.of(0xff),
        Uint8Array.of(0x80),
        Uint8Array.of(0xe2, 0x82),
        Uint8Array.of(0xf0, 0x9f, 0x98),
        Uint8Array.of(0xed, 0xa0, 0x80),
        bytesOf('é€😀'),
        bytesOf('z'.repeat(1500)),
      ),
      fc.uint8Array({ maxLength: 40 }),
    );
    const stream = fc.array(piece, { minLength: 5, maxLength: 40 }).map((parts) => Buffer.concat(parts));
    const size = fc.constantFrom(1, 5, 700, 4096, 32 * 1024);
    fc.assert(
      fc.property(stream, size, (bytes, chunkBytes) => {
        expect(split(chunksOf(bytes, chunkBytes))).toEqual(referenceSplit(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps multi-byte characters right before and right after each LF', () => {
    for (const char of ['é', '€', '😀']) {
      const lines = Array.from({ length: 40 }, (_, index) => `${char}${'a'.repeat(100 + index)}${char}`);
      const bytes = bytesOf(`${lines.join('\n')}\n`);
      for (const size of [3, 1000, 4096, bytes.length]) {
        expect(split(chunksOf(bytes, size)), `${char} in chunks of ${size}`).toEqual(referenceSplit(bytes));
      }
    }
  });

  it('handles chunks of ASCII lines next to chunks of non-ASCII lines', () => {
    const ascii = Array.from({ length: 200 }, (_, index) => `{"n":${index},"t":"${'q'.repeat(index)}"}`);
    const mixed = ascii.map((line) => line.replace('q', 'ü'));
    const bytes = bytesOf(`${[...ascii, ...mixed, ...ascii].join('\r\n')}\n`);
    for (const size of [4096, 32 * 1024]) {
      const emitted = split(chunksOf(bytes, size));
      expect(emitted, `chunks of ${size}`).toEqual(referenceSplit(bytes));
      expect(emitted).toHaveLength(600);
    }
  });

  it('reuses its join buffer without mixing up lines of different sizes', () => {
    const sizes = [40_000, 3, 70_000, 5000, 200_000, 64, 90_000];
    const lines = sizes.map((size, index) => `${String(index).repeat(size)}é`);
    const bytes = bytesOf(`${lines.join('\n')}\n`);
    for (const size of [7, 4096, 32 * 1024]) {
      const texts = split(chunksOf(bytes, size)).map((event) => (event.kind === 'line' ? event.text : ''));
      expect(texts, `chunks of ${size}`).toEqual(lines);
    }
  });

  it('joins a line longer than the kept join buffer in memory of its own', () => {
    const lines = [300_000, 5_000_000, 100_000, 6_000_000, 20].map((size, index) => `${index}`.repeat(size));
    const bytes = bytesOf(`${lines.join('\n')}\n`);
    const texts = split(chunksOf(bytes, 32 * 1024)).map((event) => (event.kind === 'line' ? event.text : ''));
    expect(texts.length).toBe(lines.length);
    expect(texts.every((text, index) => text === lines[index])).toBe(true);
  });
});
