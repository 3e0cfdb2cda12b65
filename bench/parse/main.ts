/**
 * Throughput of the CLI stdout parser against two baselines, on the same bytes, delivered in 32 KiB chunks (the
 * SSH channel's chunk size), for lines of 1 KB to 16 MB (claude-cli-protocol.md §1: 10 MB lines are normal):
 *   jsonParse  JSON.parse alone, on line strings already split and decoded: the floor no parser can beat;
 *   parser     createStreamParser: split, decode, JSON.parse and parseCliOutput (schema validation);
 *   naive      `buffer += chunk; buffer.split('\n')` plus JSON.parse, quadratic in the line length.
 * The lines are ASCII, as the §3.2 example and most source files are. Turning bytes into a string is a cost the
 * jsonParse baseline never pays, and V8 decodes UTF-8 past the first non-ASCII byte at under 1 GB/s, so the same
 * lines with a few non-ASCII characters are measured too (jsonParse and parser only) and shown before the JSON.
 * Human-readable lines first; the last line is one JSON object: {"results":[…]}. Run it with scripts/bench-parse
 * (optionally followed by line sizes in bytes).
 */
import { createStreamParser } from '../../packages/backend/src/core/stream-parser.ts';

const CHUNK_BYTES = 32 * 1024;
const MIB = 1024 * 1024;
const LINE_SIZES = [1024, 64 * 1024, MIB, 4 * MIB, 16 * MIB];
/** Per repetition and line size; 64 MB keeps timer and GC noise small next to the work. */
const STREAM_BYTES = 64 * MIB;
const REPETITIONS = 7;
/** The naive splitter gets fewer lines when big lines make it slow; its MB/s stay comparable. */
const NAIVE_BUDGET_MS = 1500;
const MB = 1e6;

/** Whether the generated text is pure ASCII or has a few non-ASCII characters (é, —) throughout. */
type Charset = 'ascii' | 'non-ascii';

interface Workload {
  readonly lineBytes: number;
  readonly lines: readonly string[];
  readonly stream: Buffer;
}

const SESSION_ID = 'aeb165df-4889-431c-92f5-d781e8dd8402';
const SEQ = '__SEQ___';
const USAGE = {
  input_tokens: 100,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 1,
};

/** An assistant text line shaped like claude-cli-protocol.md §3.2, its text padded to `pad` characters. */
function assistantLine(pad: number, charset: Charset): string {
  const text =
    charset === 'ascii' ? "I'll read the file and fix the TODO." : "I'll read café.ts — and fix the TODO.";
  return JSON.stringify({
    type: 'assistant',
    message: {
      id: 'msg_mockmwra86y9311175d',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-8',
      content: [{ type: 'text', text: `${text} ${'x'.repeat(pad)}` }],
      stop_reason: null,
      stop_sequence: null,
      usage: USAGE,
      context_management: null,
    },
    parent_tool_use_id: null,
    session_id: SESSION_ID,
    uuid: `c7f6190e-6758-4dfc-b04a-1343${SEQ}`,
    request_id: 'req_mockmwra86y920540c0',
  });
}

/** The `user` line an Edit produces: `tool_use_result.originalFile` holds the whole file (§1, [18-edit_big]). */
function editResultLine(file: string): string {
  const filePath = '/home/dev/work/src/big-module.ts';
  return JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [
        {
          tool_use_id: 'toolu_mockmwra86y91dc23b4',
          type: 'tool_result',
          content: `The file ${filePath} has been updated successfully.`,
        },
      ],
    },
    parent_tool_use_id: null,
    session_id: SESSION_ID,
    uuid: `d5b4d611-6758-4dfc-b04a-1343${SEQ}`,
    timestamp: '2026-11-22T03:33:30.058Z',
    tool_use_result: {
      filePath,
      oldString: 'TODO: fix me',
      newString: 'done',
      originalFile: file,
      structuredPatch: [
        { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ['-TODO: fix me', '+done'] },
      ],
      userModified: false,
      replaceAll: false,
    },
  });
}

/** Source-like text (newlines, tabs, quotes) whose JSON encoding takes exactly `bytes`. */
function sourceFile(bytes: number, charset: Charset): string {
  const [label, dash] = charset === 'ascii' ? ['cafe', '-'] : ['café', '—'];
  const pieces: string[] = [];
  let size = 0;
  for (let index = 0; ; index++) {
    const piece = [
      `export function handler${index}(input: string): Result {\n`,
      `\tconst value = compute("item-${index}", { retries: 3, label: '${label}' });\n`,
      `\t// Normalise the path ${dash} see issue #${index}\n`,
      `\tif (value.length > ${index % 97}) return { ok: false, reason: "too long" };\n`,
      '\treturn { ok: true, value: value.trim() };\n}\n\n',
    ].join('');
    const pieceBytes = Buffer.byteLength(JSON.stringify(piece)) - 2;
    if (size + pieceBytes > bytes) break;
    pieces.push(piece);
    size += pieceBytes;
  }
  pieces.push('x'.repeat(bytes - size));
  return pieces.join('');
}

function templateLine(lineBytes: number, charset: Charset): string {
  const build =
    lineBytes <= 4096
      ? (pad: number) => assistantLine(pad, charset)
      : (pad: number) => editResultLine(sourceFile(pad, charset));
  const overhead = Buffer.byteLength(build(0));
  const line = build(lineBytes - overhead);
  if (Buffer.byteLength(line) !== lineBytes) throw new Error(`line template is not ${lineBytes} bytes`);
  return line;
}

function buildWorkload(lineBytes: number, charset: Charset): Workload {
  const template = templateLine(lineBytes, charset);
  const count = Math.max(4, Math.ceil(STREAM_BYTES / (lineBytes + 1)));
  const lines = Array.from({ length: count }, (_, index) =>
    template.replace(SEQ, String(index).padStart(8, '0')),
  );
  return { lineBytes, lines, stream: Buffer.from(`${lines.join('\n')}\n`) };
}

function chunksOf(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES)
    chunks.push(bytes.subarray(start, start + CHUNK_BYTES));
  return chunks;
}

function timeJsonParse(lines: readonly string[]): number {
  const start = performance.now();
  let count = 0;
  for (const line of lines) {
    const value: unknown = JSON.parse(line);
    if (value !== null) count++;
  }
  return check(count, lines.length, performance.now() - start);
}

function timeParser(chunks: readonly Uint8Array[], lineCount: number): number {
  let count = 0;
  const parser = createStreamParser({
    onEvent: (event) => {
      if (event.kind === 'message') count++;
    },
  });
  const start = performance.now();
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return check(count, lineCount, performance.now() - start);
}

function timeNaive(chunks: readonly Uint8Array[], lineCount: number): number {
  const start = performance.now();
  const decoder = new TextDecoder();
  let buffer = '';
  let count = 0;
  for (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      const value: unknown = line.length > 0 ? JSON.parse(line) : null;
      if (value !== null) count++;
    }
  }
  return check(count, lineCount, performance.now() - start);
}

/** Fails the bench if a method did not parse every line; returns the elapsed ms. */
function check(count: number, expected: number, elapsed: number): number {
  if (count !== expected) throw new Error(`parsed ${count} lines, expected ${expected}`);
  return elapsed;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Runs each method once to warm up, then REPETITIONS rounds of all of them, each run after a GC; the median ms of
 * each. The methods take turns, in an order that rotates, so a load that comes and goes on a shared machine
 * weighs on all of them alike.
 */
function measure(...methods: readonly (() => number)[]): number[] {
  for (const run of methods) run();
  const entries = methods.map((run) => ({ run, times: new Array<number>() }));
  for (let rep = 0; rep < REPETITIONS; rep++) {
    const turn = rep % entries.length;
    for (const entry of [...entries.slice(turn), ...entries.slice(0, turn)]) {
      globalThis.gc?.();
      entry.times.push(entry.run());
    }
  }
  return entries.map((entry) => median(entry.times));
}

/** How many lines the naive splitter can take within its budget, from a probe on a few lines. */
function naiveLineCount(workload: Workload): number {
  const total = workload.lines.length;
  const probe = Math.max(1, Math.floor(total / 64));
  const elapsed = timeNaive(chunksOf(workload.stream.subarray(0, probe * (workload.lineBytes + 1))), probe);
  return Math.min(total, Math.max(1, Math.floor((NAIVE_BUDGET_MS * probe) / Math.max(elapsed, 0.001))));
}

function toMBps(bytes: number, ms: number): number {
  return bytes / MB / (ms / 1000);
}

function measureParser(workload: Workload): { jsonParseMBps: number; parserMBps: number } {
  const chunks = chunksOf(workload.stream);
  const [jsonParseMs = Number.NaN, parserMs = Number.NaN] = measure(
    () => timeJsonParse(workload.lines),
    () => timeParser(chunks, workload.lines.length),
  );
  return {
    jsonParseMBps: toMBps(workload.stream.length, jsonParseMs),
    parserMBps: toMBps(workload.stream.length, parserMs),
  };
}

function measureNaive(workload: Workload): { naiveMBps: number; naiveLines: number } {
  const naiveLines = naiveLineCount(workload);
  const naiveBytes = naiveLines * (workload.lineBytes + 1);
  const naiveChunks = chunksOf(workload.stream.subarray(0, naiveBytes));
  const [naiveMs = Number.NaN] = measure(() => timeNaive(naiveChunks, naiveLines));
  return { naiveMBps: toMBps(naiveBytes, naiveMs), naiveLines };
}

function benchLineSize(lineBytes: number): Record<string, number> {
  const workload = buildWorkload(lineBytes, 'ascii');
  const { jsonParseMBps, parserMBps } = measureParser(workload);
  const { naiveMBps, naiveLines } = measureNaive(workload);
  console.log(
    `${String(lineBytes).padStart(8)} B lines: jsonParse ${jsonParseMBps.toFixed(0)} MB/s, ` +
      `parser ${parserMBps.toFixed(0)} MB/s (${workload.lines.length} lines), naive ${naiveMBps.toFixed(1)} MB/s ` +
      `(${naiveLines} lines) -> vsJsonParse ${(parserMBps / jsonParseMBps).toFixed(2)}, ` +
      `vsNaive ${(parserMBps / naiveMBps).toFixed(1)}`,
  );
  const nonAscii = measureParser(buildWorkload(lineBytes, 'non-ascii'));
  console.log(
    `${' '.repeat(10)}non-ASCII: jsonParse ${nonAscii.jsonParseMBps.toFixed(0)} MB/s, ` +
      `parser ${nonAscii.parserMBps.toFixed(0)} MB/s -> vsJsonParse ` +
      (nonAscii.parserMBps / nonAscii.jsonParseMBps).toFixed(2),
  );
  return {
    lineBytes,
    jsonParseMBps: round(jsonParseMBps, 1),
    parserMBps: round(parserMBps, 1),
    naiveMBps: round(naiveMBps, 2),
    vsJsonParse: round(parserMBps / jsonParseMBps, 3),
    vsNaive: round(parserMBps / naiveMBps, 2),
  };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** What parseCliOutput makes of each kind of line benchmarked, so a stub or a fallback to `unknown` shows. */
function describeSchemaPath(): string {
  const kinds = [1024, 64 * 1024].map((lineBytes) => {
    let kind = 'none';
    const parser = createStreamParser({
      onEvent: (event) => {
        kind = event.kind === 'message' ? `message:${event.message.type}` : event.kind;
      },
    });
    parser.push(Buffer.from(`${templateLine(lineBytes, 'ascii')}\n`));
    return `${lineBytes <= 4096 ? 'assistant' : 'user/Edit'} line -> ${kind}`;
  });
  return kinds.join(', ');
}

function main(): void {
  console.log(
    `node ${process.version}, ${CHUNK_BYTES / 1024} KiB chunks, median of ${REPETITIONS} runs (jsonParse and parser ` +
      'interleaved), MB = 1e6 B, ASCII lines',
  );
  console.log(`parseCliOutput: ${describeSchemaPath()}`);
  if (globalThis.gc === undefined) console.log('(run with --expose-gc for steadier figures)');
  const requested = process.argv.slice(2).map(Number);
  const sizes = requested.length > 0 ? requested : LINE_SIZES;
  const results = sizes.map((lineBytes) => benchLineSize(lineBytes));
  console.log(JSON.stringify({ results }));
}

main();
