/**
 * How an idea's event history (packages/backend/src/ideas/event-history.ts) scales: a history of EVENTS events of
 * about 600 bytes (a mix of text, tool use and results, as a build writes) is written to a temporary folder, then
 * opened cold (no index: the streaming scan that builds events.idx) and warm (index present), replayed whole in
 * 200-event pages as ws-subscriptions.ts does, and its last 200 events read from a cold open (nothing in memory).
 * With `--gib`, an idea whose events.ndjson is 1 GiB (small lines, written directly) is opened and its last page
 * read, to show that a history past V8's string limit opens. Figures are wall times on local files; peak RSS is
 * the process's (resource.maxRSS). The last line is one JSON object:
 * {"events","fileMb","openMs","replayFromZeroMs","replayLast200Ms","peakRssMb"} (+ gib* fields with --gib).
 */
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RelayEvent } from '../../packages/protocol/src/index.ts';
import { createLocalFiles } from '../../packages/backend/src/host/local-files.ts';
import { IdeaHistory } from '../../packages/backend/src/ideas/event-history.ts';

const EVENTS = 100_000;
const PAGE = 200;
const MB = 1024 * 1024;
const ideaId = 'idea-0123456789abcdef';

function eventAt(seq: number, ts: string): RelayEvent {
  const runId = `run-${String(Math.floor(seq / 500))}`;
  const kind = seq % 3;
  if (kind === 0) {
    const text = `Line ${String(seq)}: ${'the model explains what it is doing next, at some length. '.repeat(8)}`;
    return {
      type: 'claude:text',
      ideaId,
      runId,
      seq,
      ts,
      text,
      messageId: `m${String(seq)}`,
      parentToolUseId: null,
    };
  }
  return { type: 'idea:status', ideaId, runId, seq, ts, status: kind === 1 ? 'building' : 'chatting' };
}

/** Writes `count` events (or lines up to `bytes`) to `path` in 8 MiB appends; returns the file's size. */
async function writeHistory(path: string, limit: { count?: number; bytes?: number }): Promise<number> {
  const file = await open(path, 'w');
  const ts = new Date().toISOString();
  let chunk: string[] = [];
  let chunkBytes = 0;
  let written = 0;
  for (let seq = 1; seq <= (limit.count ?? Number.MAX_SAFE_INTEGER); seq++) {
    const line = `${JSON.stringify(limit.bytes === undefined ? eventAt(seq, ts) : small(seq, ts))}\n`;
    chunk.push(line);
    chunkBytes += line.length;
    if (chunkBytes >= 8 * MB) {
      await file.write(chunk.join(''));
      written += chunkBytes;
      chunk = [];
      chunkBytes = 0;
      if (limit.bytes !== undefined && written >= limit.bytes) break;
    }
  }
  await file.write(chunk.join(''));
  await file.close();
  return (await stat(path)).size;
}

function small(seq: number, ts: string): RelayEvent {
  return { type: 'idea:status', ideaId, runId: 'run-1', seq, ts, status: 'building' };
}

async function timed<T>(action: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await action();
  return { value, ms: Math.round((performance.now() - started) * 10) / 10 };
}

async function replayAll(history: IdeaHistory): Promise<number> {
  let since = 0;
  let count = 0;
  for (;;) {
    const page = await history.since(since, PAGE);
    if (page.length === 0) return count;
    count += page.length;
    since = page.at(-1)?.seq ?? since;
  }
}

async function openCold(path: string): Promise<IdeaHistory> {
  await rm(path.replace(/\.ndjson$/, '.idx'), { force: true });
  return IdeaHistory.open({ files: createLocalFiles(), path });
}

async function measure(dir: string): Promise<Record<string, number>> {
  const path = join(dir, 'events.ndjson');
  const bytes = await writeHistory(path, { count: EVENTS });
  const cold = await timed(() => openCold(path));
  await cold.value.close();
  const warm = await timed(() => IdeaHistory.open({ files: createLocalFiles(), path }));
  const full = await timed(() => replayAll(warm.value));
  if (full.value !== EVENTS) throw new Error(`replayed ${String(full.value)} of ${String(EVENTS)} events`);
  await warm.value.close();
  const fresh = await IdeaHistory.open({ files: createLocalFiles(), path });
  const last = await timed(() => fresh.since(fresh.lastSeq - PAGE, PAGE));
  if (last.value.length !== PAGE) throw new Error(`the last page held ${String(last.value.length)} events`);
  await fresh.close();
  console.log(
    `${String(EVENTS)} events, ${(bytes / MB).toFixed(1)} MiB; first open (index built) ${String(cold.ms)} ms`,
  );
  console.log(
    `open ${String(warm.ms)} ms, full replay ${String(full.ms)} ms, last ${String(PAGE)} ${String(last.ms)} ms`,
  );
  return {
    events: EVENTS,
    fileMb: round(bytes / MB),
    openMs: warm.ms,
    replayFromZeroMs: full.ms,
    replayLast200Ms: last.ms,
  };
}

async function measureGib(dir: string): Promise<Record<string, number>> {
  const path = join(dir, 'big.ndjson');
  const bytes = await writeHistory(path, { bytes: 1024 * MB });
  const cold = await timed(() => openCold(path));
  await cold.value.close();
  const warm = await timed(() => IdeaHistory.open({ files: createLocalFiles(), path }));
  const last = await timed(() => warm.value.since(warm.value.lastSeq - PAGE, PAGE));
  if (last.value.length !== PAGE) throw new Error(`the last page held ${String(last.value.length)} events`);
  await warm.value.close();
  console.log(
    `1 GiB history (${(bytes / MB).toFixed(0)} MiB, ${String(warm.value.lastSeq)} events): first open ${String(cold.ms)} ms, ` +
      `open ${String(warm.ms)} ms, last ${String(PAGE)} ${String(last.ms)} ms`,
  );
  return { gibFileMb: round(bytes / MB), gibFirstOpenMs: cold.ms, gibOpenMs: warm.ms, gibLast200Ms: last.ms };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

const dir = await mkdtemp(join(tmpdir(), 'catalyst-bench-history-'));
try {
  const figures = await measure(dir);
  const gib = process.argv.includes('--gib') ? await measureGib(dir) : {};
  const peakRssMb = round((process.resourceUsage().maxRSS * 1024) / MB);
  console.log(JSON.stringify({ ...figures, peakRssMb, ...gib }));
} finally {
  await rm(dir, { recursive: true, force: true });
}
