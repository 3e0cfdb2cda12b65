import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNdjsonLineSplitter, DEFAULT_MAX_LINE_BYTES } from './ndjson-lines.ts';

type Emitted =
  | { kind: 'line'; text: string; byteLength: number }
  | { kind: 'too_long'; byteLength: number; limitBytes: number };

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);

function split(chunks: readonly Uint8Array[], maxLineBytes?: number): Emitted[] {
  const emitted: Emitted[] = [];
  const splitter = createNdjsonLineSplitter({
    onLine: (text, byteLength) => emitted.push({ kind: 'line', text, byteLength }),
    onLineTooLong: (byteLength, limitBytes) => emitted.push({ kind: 'too_long', byteLength, limitBytes }),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return emitted;
}

function linesOf(chunks: readonly Uint8Array[]): string[] {
  return split(chunks).map((event) =>
    event.kind === 'line' ? event.text : `<too long ${event.byteLength}>`,
  );
}

/** The stream cut at the given byte offsets (ascending). */
function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, index) => bytes.subarray(bounds[index], end));
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

describe('createNdjsonLineSplitter', () => {
  const stream = '{"a":1}\nbc\n{"x":"y"}\r\n\nlast';
  const expected = ['{"a":1}', 'bc', '{"x":"y"}', 'last'];

  it('splits lines cut at every pair of byte positions', () => {
    const bytes = bytesOf(stream);
    for (let first = 0; first <= bytes.length; first++) {
      for (let second = first; second <= bytes.length; second++) {
        expect(linesOf(cutAt(bytes, [first, second])), `cut at ${first},${second}`).toEqual(expected);
      }
    }
  });

  it('splits a stream delivered one byte at a time', () => {
    expect(linesOf(chunksOf(bytesOf(stream), 1))).toEqual(expected);
  });

  it.each(['é', '€', '😀'])('keeps %s intact when split at every byte offset', (char) => {
    const line = `{"t":"a${char}b${char}"}`;
    const bytes = bytesOf(`${line}\n${line}`);
    for (let offset = 1; offset < bytes.length; offset++) {
      const lines = linesOf(cutAt(bytes, [offset]));
      expect(lines, `cut at ${offset}`).toEqual([line, line]);
    }
    expect(linesOf(chunksOf(bytes, 1))).toEqual([line, line]);
  });

  it('matches a reference split for any text cut anywhere', () => {
    const piece = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', 'é', '€', '😀'),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    const text = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(''));
    const cuts = fc.uniqueArray(fc.nat({ max: 800 }), { maxLength: 12 });
    fc.assert(
      fc.property(text, cuts, (sample, offsets) => {
        const bytes = bytesOf(sample);
        const sorted = offsets.filter((offset) => offset <= bytes.length).sort((a, b) => a - b);
        const reference = sample
          .split('\n')
          .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
          .filter((line) => line.length > 0);
        expect(linesOf(cutAt(bytes, sorted))).toEqual(reference);
      }),
    );
  });

  it('strips exactly one trailing \\r and keeps a \\r inside a line', () => {
    expect(linesOf([bytesOf('a\r\nb\rc\r\nd\r\r\n')])).toEqual(['a', 'b\rc', 'd\r']);
  });

  it('counts byteLength in bytes, without the line ending', () => {
    const emitted = split([bytesOf('é€😀\r\n'), bytesOf('ab\n')]);
    expect(emitted).toEqual([
      { kind: 'line', text: 'é€😀', byteLength: 9 },
      { kind: 'line', text: 'ab', byteLength: 2 },
    ]);
  });

  it('reports a final unterminated line only at end()', () => {
    const seen: string[] = [];
    const splitter = createNdjsonLineSplitter({ onLine: (text) => seen.push(text), onLineTooLong: () => {} });
    splitter.push(bytesOf('one\ntw'));
    splitter.push(bytesOf('o'));
    expect(seen).toEqual(['one']);
    splitter.end();
    expect(seen).toEqual(['one', 'two']);
    splitter.end();
    expect(seen).toEqual(['one', 'two']);
    expect(() => {
      splitter.push(bytesOf('x\n'));
    }).toThrow(/after end/);
  });

  it('ignores empty lines and empty chunks', () => {
    const empty = new Uint8Array(0);
    const chunks = [
      empty,
      bytesOf('\n\r\n'),
      empty,
      bytesOf('a'),
      empty,
      bytesOf('\n'),
      empty,
      bytesOf('\n'),
    ];
    expect(linesOf(chunks)).toEqual(['a']);
    expect(split([empty])).toEqual([]);
  });

  it('emits many lines from one chunk, in order', () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `{"n":${index}}`);
    expect(linesOf([bytesOf(`${lines.join('\n')}\n`)])).toEqual(lines);
  });

  it('reassembles a 10 MB line delivered in 32 KiB chunks', () => {
    const body = 'x€'.repeat(2_500_000);
    const line = `{"big":"${body}"}`;
    const bytes = bytesOf(`{"a":1}\n${line}\n{"b":2}\n`);
    expect(bytes.length).toBeGreaterThan(10_000_000);
    const emitted = split(chunksOf(bytes, 32 * 1024));
    expect(emitted.map((event) => event.kind)).toEqual(['line', 'line', 'line']);
    const big = emitted[1];
    expect(big?.byteLength).toBe(bytesOf(line).length);
    expect(big?.kind === 'line' && big.text === line).toBe(true);
  });

  it('replaces invalid UTF-8 with U+FFFD instead of losing the line', () => {
    const bytes = Uint8Array.of(0x61, 0xff, 0x62, 0x0a);
    expect(split([bytes])).toEqual([{ kind: 'line', text: 'a\uFFFDb', byteLength: 3 }]);
    const long = new Uint8Array(20_000).fill(0x61);
    long[10_000] = 0xff;
    const [event] = split([long]);
    expect(event?.kind === 'line' && event.text).toBe(`${'a'.repeat(10_000)}\uFFFD${'a'.repeat(9_999)}`);
  });

  it('decodes long lines, ASCII or not, the same whether whole or cut', () => {
    const ascii = `{"file":"${'abc\\n\\t"'.repeat(3000)}"}`;
    const mixed = `${ascii.slice(0, -2)}é"}`;
    const bytes = bytesOf(`${ascii}\n${mixed}\r\n`);
    for (const size of [7, 8191, 8192, 32 * 1024, bytes.length]) {
      expect(linesOf(chunksOf(bytes, size)), `chunks of ${size}`).toEqual([ascii, mixed]);
    }
  });

  it('accepts Buffers and Uint8Array views at any offset of a larger buffer', () => {
    const backing = bytesOf('xx{"a":1}\n{"b":2}\nyy');
    const view = backing.subarray(2, backing.length - 2);
    expect(linesOf([view])).toEqual(['{"a":1}', '{"b":2}']);
    expect(linesOf([Buffer.from(view), Buffer.from('{"c":3}')])).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});

describe('createNdjsonLineSplitter with maxLineBytes', () => {
  const limit = 16;

  it('reports a line over the ceiling with its full size, then parses the next line', () => {
    const long = 'y'.repeat(100);
    const bytes = bytesOf(`ok\n${long}\nnext\n`);
    for (const size of [1, 3, 7, 16, 17, 200]) {
      expect(split(chunksOf(bytes, size), limit), `chunks of ${size}`).toEqual([
        { kind: 'line', text: 'ok', byteLength: 2 },
        { kind: 'too_long', byteLength: 100, limitBytes: limit },
        { kind: 'line', text: 'next', byteLength: 4 },
      ]);
    }
  });

  it('accepts a line of exactly the ceiling, with or without CRLF, and rejects one byte more', () => {
    const exact = 'z'.repeat(limit);
    for (const size of [1, 5, 64]) {
      const bytes = bytesOf(`${exact}\r\n${exact}\n${exact}z\n${exact}z\r\n`);
      expect(split(chunksOf(bytes, size), limit), `chunks of ${size}`).toEqual([
        { kind: 'line', text: exact, byteLength: limit },
        { kind: 'line', text: exact, byteLength: limit },
        { kind: 'too_long', byteLength: limit + 1, limitBytes: limit },
        { kind: 'too_long', byteLength: limit + 1, limitBytes: limit },
      ]);
    }
  });

  it('splits a chunk bigger than the ceiling that holds many lines, short and over-long', () => {
    const bytes = bytesOf(`a\n${'é'.repeat(9)}\n${'v'.repeat(17)}\r\nbb\r\n${'€'.repeat(6)}\n`);
    expect(split([bytes], limit)).toEqual([
      { kind: 'line', text: 'a', byteLength: 1 },
      { kind: 'too_long', byteLength: 18, limitBytes: limit },
      { kind: 'too_long', byteLength: 17, limitBytes: limit },
      { kind: 'line', text: 'bb', byteLength: 2 },
      { kind: 'too_long', byteLength: 18, limitBytes: limit },
    ]);
  });

  it('reports an unterminated line over the ceiling at end()', () => {
    expect(split(chunksOf(bytesOf('w'.repeat(40)), 8), limit)).toEqual([
      { kind: 'too_long', byteLength: 40, limitBytes: limit },
    ]);
  });

  it('defaults to 64 MiB and rejects a ceiling that is not a positive integer', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(64 * 1024 * 1024);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => split([], bad)).toThrow(RangeError);
    }
  });
});
