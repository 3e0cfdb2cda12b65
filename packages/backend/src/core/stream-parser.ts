import { parseCliOutput } from '@catalyst/protocol';
import type { ParsedMessage, StreamEvent, UnparsableLine } from '@catalyst/protocol';
import { createNdjsonLineSplitter } from './ndjson-lines.ts';

/**
 * Turns the bytes of the CLI's stream-json stdout (claude-cli-protocol.md §1) into typed `StreamEvent`s.
 * Every non-empty line yields exactly one event: a parsed message, an `unparsable_line` (not JSON), or a
 * `line_too_long` (over `maxLineBytes`). Nothing here throws on input, and nothing is dropped silently
 * (STYLE.md, Errors).
 */

const SAMPLE_MAX_CHARS = 200;

export interface StreamParserOptions {
  /** Called synchronously, in stream order. It must not throw: an exception propagates out of `push`/`end`. */
  readonly onEvent: (event: StreamEvent) => void;
  /** Ceiling on one line's bytes; default 64 MiB (see ndjson-lines.ts). */
  readonly maxLineBytes?: number;
}

export interface StreamParser {
  /** The next bytes of stdout, split anywhere. Do not reuse the chunk's memory afterwards. */
  push(chunk: Uint8Array): void;
  /** End of stdout: reports a final line that lacks its `\n`. */
  end(): void;
}

export interface ParseStreamOptions {
  readonly maxLineBytes?: number;
}

export function createStreamParser(options: StreamParserOptions): StreamParser {
  const { onEvent, ...splitterOptions } = options;
  return createNdjsonLineSplitter({
    ...splitterOptions,
    onLine: (text, byteLength) => {
      onEvent(parseStreamLine(text, byteLength));
    },
    onLineTooLong: (byteLength, limitBytes) => {
      onEvent({ kind: 'line_too_long', byteLength, limitBytes });
    },
  });
}

/**
 * Parses a whole byte stream, e.g. a child process's stdout (a Node Readable without `setEncoding`, which
 * iterates as Buffers). Breaking out of the loop early closes the source iterator.
 */
export async function* parseStream(
  chunks: AsyncIterable<Uint8Array>,
  options: ParseStreamOptions = {},
): AsyncGenerator<StreamEvent, void, undefined> {
  const pending: StreamEvent[] = [];
  const parser = createStreamParser({ ...options, onEvent: (event) => pending.push(event) });
  for await (const chunk of chunks) {
    // A Readable with an encoding set yields strings; their bytes would be miscounted and split wrongly.
    if (!(chunk instanceof Uint8Array)) throw new TypeError('parseStream expects byte chunks (Uint8Array)');
    parser.push(chunk);
    yield* pending.splice(0);
  }
  parser.end();
  yield* pending.splice(0);
}

/** One line of text (without its `\n`) to one event; never throws. */
export function parseStreamLine(text: string, byteLength: number): ParsedMessage | UnparsableLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return toUnparsableLine(text, byteLength, describeError(error));
  }
  try {
    return { kind: 'message', message: parseCliOutput(value), byteLength };
  } catch (error) {
    // parseCliOutput promises never to throw; if it ever does, the line still becomes a visible event.
    return toUnparsableLine(text, byteLength, `parseCliOutput threw: ${describeError(error)}`);
  }
}

function toUnparsableLine(text: string, byteLength: number, error: string): UnparsableLine {
  return { kind: 'unparsable_line', sample: sampleOf(text), byteLength, error };
}

/** The first characters of a line, never ending in half of a surrogate pair, in a string of their own. */
function sampleOf(text: string): string {
  let end = Math.min(text.length, SAMPLE_MAX_CHARS);
  const lastCode = text.charCodeAt(end - 1);
  if (end < text.length && lastCode >= 0xd800 && lastCode <= 0xdbff) end--;
  // V8 may represent a slice as a view that keeps what it was cut from alive as long as the event lives: a whole
  // (maybe 10 MB) line, or the text of the whole chunk that a short line came in (ndjson-lines.ts). Joining the
  // characters again makes a copy.
  return Array.from(text.slice(0, end)).join('');
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
