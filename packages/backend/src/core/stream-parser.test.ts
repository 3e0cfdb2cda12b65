import { Readable } from 'node:stream';
import { parseCliOutput, StreamEventSchema } from '@catalyst/protocol';
import type { StreamEvent } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { createStreamParser, parseStream, parseStreamLine } from './stream-parser.ts';

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);

const assistantLine = JSON.stringify({
  type: 'assistant',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-4-8',
    content: [{ type: 'text', text: 'Voilà: 😀' }],
    stop_reason: null,
  },
  parent_tool_use_id: null,
  session_id: 'aeb165df-4889-431c-92f5-d781e8dd8402',
  uuid: 'c7f6190e-6758-4dfc-b04a-134546388620',
});
const resultLine = '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s"}';

function parseAll(chunks: readonly Uint8Array[], maxLineBytes?: number): StreamEvent[] {
  const events: StreamEvent[] = [];
  const parser = createStreamParser({
    onEvent: (event) => events.push(event),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

function expectMessage(event: StreamEvent | undefined, line: string): void {
  expect(event).toEqual({
    kind: 'message',
    message: parseCliOutput(JSON.parse(line)),
    byteLength: bytesOf(line).length,
  });
}

describe('createStreamParser', () => {
  it('turns each JSON line into a message event, whatever the chunking', () => {
    const bytes = bytesOf(`${assistantLine}\n${resultLine}\n`);
    for (const size of [1, 2, 3, 5, 64, bytes.length]) {
      const events = parseAll(chunksOf(bytes, size));
      expect(events).toHaveLength(2);
      expectMessage(events[0], assistantLine);
      expectMessage(events[1], resultLine);
    }
  });

  it('emits only events that match the protocol schema', () => {
    const bytes = bytesOf(`${assistantLine}\nnot json\n${'x'.repeat(50)}\n[1,2]\n`);
    const events = parseAll([bytes], 40);
    expect(events.map((event) => event.kind)).toEqual([
      'line_too_long',
      'unparsable_line',
      'line_too_long',
      'message',
    ]);
    for (const event of events) expect(StreamEventSchema.parse(event)).toEqual(event);
  });

  it('reports a non-JSON line as unparsable_line with a sample and the JSON error', () => {
    const events = parseAll([bytesOf('Error: something broke\n'), bytesOf(`${resultLine}\n`)]);
    expect(events[0]).toEqual({
      kind: 'unparsable_line',
      sample: 'Error: something broke',
      byteLength: 22,
      error: expect.stringMatching(/JSON/) as unknown,
    });
    expectMessage(events[1], resultLine);
  });

  it('parses a chunk of many lines, JSON or not, ASCII or not', () => {
    const lines = [resultLine, 'Error: not JSON', assistantLine, `${resultLine}\r`];
    const bytes = bytesOf(`${lines.join('\n')}\n`.repeat(30));
    for (const size of [bytes.length, 4096, 1000]) {
      const events = parseAll(chunksOf(bytes, size));
      expect(events, `chunks of ${size}`).toHaveLength(120);
      for (let index = 0; index < events.length; index += 4) {
        expectMessage(events[index], resultLine);
        expect(events[index + 1]).toMatchObject({
          kind: 'unparsable_line',
          sample: 'Error: not JSON',
          byteLength: 15,
        });
        expectMessage(events[index + 2], assistantLine);
        expectMessage(events[index + 3], resultLine);
      }
    }
  });

  it('reports a truncated JSON line (stdout cut mid-line) at end()', () => {
    const events = parseAll([bytesOf(`${resultLine}\n{"type":"assis`)]);
    expect(events.map((event) => event.kind)).toEqual(['message', 'unparsable_line']);
    expect(events[1]).toMatchObject({ kind: 'unparsable_line', sample: '{"type":"assis', byteLength: 14 });
  });

  it('keeps the sample of a long unparsable line to 200 characters', () => {
    const line = `<${'a'.repeat(198)}😀${'b'.repeat(500)}`;
    const event = parseStreamLine(line, bytesOf(line).length);
    expect(event.kind).toBe('unparsable_line');
    // The emoji straddles characters 200 and 201: it is left out rather than cut in half.
    expect(event.kind === 'unparsable_line' && event.sample).toBe(`<${'a'.repeat(198)}`);
    const ascii = `<${'c'.repeat(500)}`;
    const asciiEvent = parseStreamLine(ascii, ascii.length);
    expect(asciiEvent.kind === 'unparsable_line' && asciiEvent.sample).toBe(ascii.slice(0, 200));
  });

  it('reports a line over the ceiling as line_too_long, then parses the next line', () => {
    const big = JSON.stringify({ type: 'user', tool_use_result: { originalFile: 'f'.repeat(5000) } });
    const bytes = bytesOf(`${big}\r\n${resultLine}\r\n`);
    const events = parseAll(chunksOf(bytes, 1000), 1024);
    expect(events[0]).toEqual({ kind: 'line_too_long', byteLength: bytesOf(big).length, limitBytes: 1024 });
    expectMessage(events[1], resultLine);
    expect(events).toHaveLength(2);
  });

  it('parses a 10 MB Edit result line delivered in 32 KiB chunks', () => {
    const file = 'const café = "€";\n'.repeat(560_000);
    const line = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'updated' }] },
      tool_use_result: { filePath: '/home/dev/work/big.ts', originalFile: file },
    });
    expect(bytesOf(line).length).toBeGreaterThan(10_000_000);
    const events = parseAll(chunksOf(bytesOf(`${line}\n${resultLine}\n`), 32 * 1024));
    expect(events).toHaveLength(2);
    expectMessage(events[0], line);
    expectMessage(events[1], resultLine);
  });

  it('ignores empty lines and empty chunks', () => {
    const empty = new Uint8Array(0);
    const events = parseAll([empty, bytesOf('\n\r\n'), empty, bytesOf(`${resultLine}\n\n`), empty]);
    expect(events).toHaveLength(1);
    expectMessage(events[0], resultLine);
  });
});

describe('parseStream', () => {
  it('parses a Node Readable of Buffers', async () => {
    const bytes = Buffer.from(`${assistantLine}\n${resultLine}`);
    const source = Readable.from([bytes.subarray(0, 7), bytes.subarray(7, 300), bytes.subarray(300)]);
    const events: StreamEvent[] = [];
    for await (const event of parseStream(source)) events.push(event);
    expect(events).toHaveLength(2);
    expectMessage(events[0], assistantLine);
    expectMessage(events[1], resultLine);
  });

  it('passes maxLineBytes through', async () => {
    const source = Readable.from([bytesOf(`${'n'.repeat(30)}\n`), bytesOf(`${resultLine}\n`)]);
    const events: StreamEvent[] = [];
    for await (const event of parseStream(source, { maxLineBytes: 50 })) events.push(event);
    expect(events[0]).toMatchObject({ kind: 'unparsable_line', byteLength: 30 });
    expect(events[1]).toEqual({ kind: 'line_too_long', byteLength: resultLine.length, limitBytes: 50 });
  });

  it('closes the source when the consumer stops early', async () => {
    const source = Readable.from([bytesOf(`${resultLine}\n${resultLine}\n`), bytesOf(`${resultLine}\n`)]);
    let count = 0;
    for await (const event of parseStream(source)) {
      expect(event.kind).toBe('message');
      count++;
      break;
    }
    expect(count).toBe(1);
    expect(source.destroyed).toBe(true);
  });

  it('rejects text chunks from a stream with an encoding set', async () => {
    const source = Readable.from(['{"type":"result"}\n'], { objectMode: true });
    await expect(async () => {
      for await (const _event of parseStream(source)) {
        // consume
      }
    }).rejects.toThrow(TypeError);
  });
});
