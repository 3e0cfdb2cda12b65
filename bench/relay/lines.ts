/**
 * The bench's lines as the stand-in (stand-in.ts, run as .mjs) writes them, and what the readers make of them: a
 * text `relay-bench <tag> <index> <send ms>` per line, and one tally per tag of which indexes arrived, how often,
 * and how long after their send time.
 */

/** The stand-in's clock: wall-clock ms with µs precision; processes of one machine agree on it to about 1 µs. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

const LINE_TEXT = /^relay-bench (\S+) (\d+) (\d+\.\d+)$/;
const RESULT_TEXT = /^relay-bench (\S+) done sent=(\d+) maxLagMs=(\d+\.\d+)$/;

export interface BenchLine {
  readonly tag: string;
  readonly index: number;
  readonly sentAt: number;
}

export interface BenchResult {
  readonly tag: string;
  readonly sent: number;
  /** How far behind its schedule the stand-in wrote its latest line: its own lateness, not the relay's. */
  readonly maxLagMs: number;
}

export function parseBenchLine(text: string): BenchLine | undefined {
  const match = LINE_TEXT.exec(text);
  if (match === null) return undefined;
  const [, tag = '', index = '', sentAt = ''] = match;
  return { tag, index: Number(index), sentAt: Number(sentAt) };
}

export function parseBenchResult(text: string): BenchResult | undefined {
  const match = RESULT_TEXT.exec(text);
  if (match === null) return undefined;
  const [, tag = '', sent = '', maxLagMs = ''] = match;
  return { tag, sent: Number(sent), maxLagMs: Number(maxLagMs) };
}

/** The user message that makes the stand-in run one turn of `lines` lines at `rate` per second. */
export function benchPrompt(tag: string, lines: number, rate: number): string {
  return `relay-bench tag=${tag} lines=${lines} rate=${rate}`;
}

export interface TagTally {
  readonly planned: number;
  /** Distinct indexes that arrived. */
  received: number;
  duplicates: number;
  /** Arrivals with a lower index than one before them. */
  outOfOrder: number;
  /** Arrival minus send time, ms, one per distinct line, in arrival order. */
  readonly latenciesMs: number[];
  result?: BenchResult;
}

/** Every line each tag's readers saw; lines of unknown tags or indexes are counted, never dropped silently. */
export class LineTally {
  readonly #tags = new Map<string, { tally: TagTally; seen: Uint8Array; highest: number }>();
  strays = 0;

  expect(tag: string, planned: number): TagTally {
    const tally: TagTally = { planned, received: 0, duplicates: 0, outOfOrder: 0, latenciesMs: [] };
    this.#tags.set(tag, { tally, seen: new Uint8Array(planned), highest: -1 });
    return tally;
  }

  record(line: BenchLine, arrivedAt: number): void {
    const entry = this.#tags.get(line.tag);
    if (entry === undefined || line.index >= entry.seen.length) {
      this.strays++;
      return;
    }
    if (entry.seen[line.index] === 1) {
      entry.tally.duplicates++;
      return;
    }
    entry.seen[line.index] = 1;
    entry.tally.received++;
    entry.tally.latenciesMs.push(arrivedAt - line.sentAt);
    if (line.index < entry.highest) entry.tally.outOfOrder++;
    entry.highest = Math.max(entry.highest, line.index);
  }

  recordResult(result: BenchResult): void {
    const entry = this.#tags.get(result.tag);
    if (entry === undefined) this.strays++;
    else entry.tally.result = result;
  }

  get(tag: string): TagTally | undefined {
    return this.#tags.get(tag)?.tally;
  }
}

/** Nearest-rank percentile of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function summarize(values: readonly number[]): LatencySummary {
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: percentile(values, 100),
  };
}

export function formatSummary(summary: LatencySummary): string {
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  return `p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}, max ${ms(summary.max)} (${summary.count} lines)`;
}
