import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RelayEvent, RelayEventDraft } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { RECAP_MESSAGES } from '../src/runs/core/lost-session.ts';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory } from '../src/ideas/event-history.ts';
import { CHUNK_BYTES } from '../src/ideas/history-lines.ts';
import { IdeaStore } from '../src/ideas/idea-store.ts';
import { readConversation, sessionRecapFor } from '../src/runs/prompt-routing.ts';
import { countingFiles } from './history-test-kit.ts';

// The newest events of a history, read backwards from its end: the session recap and the answerer's context hold
// what they use, not the whole history (a 1 GiB history must not be read into memory for 20 messages).

const ideaId = 'idea-0123456789abcdef';
const RUNS = 600;
let dir: TempDir;
let path: string;

beforeEach(async () => {
  dir = await createTempDir('history-latest');
  path = join(dir.path, 'events.ndjson');
});
afterEach(() => dir.remove());

/** A run: the person's message, Claude's text, then tool results that are no part of the conversation (~10 KB). */
function runDrafts(run: number): RelayEventDraft[] {
  const runId = `run-${String(run)}`;
  const drafts: RelayEventDraft[] = [
    { type: 'run:started', ideaId, runId, mode: 'chat', message: `ask ${String(run)}` },
    {
      type: 'claude:text',
      ideaId,
      runId,
      text: `answer ${String(run)}`,
      messageId: 'm',
      parentToolUseId: null,
    },
  ];
  for (let n = 0; n < 5; n++) {
    const content = `output ${String(n)} `.repeat(200);
    drafts.push({
      type: 'claude:tool_result',
      ideaId,
      runId,
      toolUseId: `t${String(n)}`,
      content,
      isError: false,
    });
  }
  return drafts;
}

/** RUNS runs written straight to events.ndjson (~6 MB), as an earlier process would have left them. */
async function writeRuns(): Promise<number> {
  const ts = new Date().toISOString();
  const lines: string[] = [];
  for (let run = 1; run <= RUNS; run++)
    for (const draft of runDrafts(run))
      lines.push(`${JSON.stringify({ ...draft, seq: lines.length + 1, ts })}\n`);
  await writeFile(path, lines.join(''));
  return lines.length;
}

const isMessage = (event: RelayEvent) => event.type === 'run:started' || event.type === 'claude:text';

describe('IdeaHistory.latest', () => {
  it('reads the newest events backwards from the end, and only as far as they go', async () => {
    const events = await writeRuns();
    const size = (await stat(path)).size;
    const { files, read } = countingFiles(path);
    const history = await IdeaHistory.open({ files, path });
    read.bytes = 0;
    const newest = await history.latest({ maxEvents: 3, maxBytes: 1024 * 1024 });
    expect(newest.events.map((e) => e.seq)).toEqual([events - 2, events - 1, events]);
    expect(newest.isComplete).toBe(false);
    const messages = await history.latest({ maxEvents: 4, maxBytes: 1024 * 1024, select: isMessage });
    expect(messages.events.map((e) => (e.type === 'run:started' ? e.message : ''))).toEqual([
      `ask ${String(RUNS - 1)}`,
      '',
      `ask ${String(RUNS)}`,
      '',
    ]);
    // Each read stays within the newest chunk of the file.
    expect(read.bytes).toBeLessThanOrEqual(2 * CHUNK_BYTES);
    expect(2 * CHUNK_BYTES).toBeLessThan(size / 5);
    await history.close();
  });

  it('says it is complete when every selected event fits, and bounds what it holds by bytes', async () => {
    await writeRuns();
    const history = await IdeaHistory.open({ files: createLocalFiles(), path });
    const all = await history.latest({ maxEvents: 10_000, maxBytes: 64 * 1024 * 1024, select: isMessage });
    expect(all.events).toHaveLength(2 * RUNS);
    expect(all.events[0]?.seq).toBe(1);
    expect(all.isComplete).toBe(true);
    const bounded = await history.latest({ maxEvents: 100, maxBytes: 10 * 1024 });
    const lineBytes = (event: RelayEvent) => Buffer.byteLength(JSON.stringify(event)) + 1;
    const held = bounded.events.reduce((sum, event) => sum + lineBytes(event), 0);
    expect(bounded.events.length).toBeGreaterThan(2);
    expect(held).toBeLessThanOrEqual(10 * 1024);
    // The next older event did not fit.
    const older = await history.since((bounded.events[0]?.seq ?? 0) - 2, 1);
    expect(older).toHaveLength(1);
    expect(older.reduce((sum, event) => sum + lineBytes(event), held)).toBeGreaterThan(10 * 1024);
    expect(bounded.isComplete).toBe(false);
    // The newest one is returned whatever its size.
    expect((await history.latest({ maxEvents: 100, maxBytes: 1 })).events).toHaveLength(1);
    await history.close();
  });

  it('includes events not written yet, skips a partial last line and a duplicated batch, joins a long line', async () => {
    const first = await IdeaHistory.open({ files: createLocalFiles(), path });
    const long = 'y'.repeat(600 * 1024);
    first.append({
      type: 'claude:text',
      ideaId,
      runId: 'r',
      text: long,
      messageId: 'm',
      parentToolUseId: null,
    });
    first.append(runDrafts(1)[0] ?? { type: 'idea:status', ideaId, status: 'chatting' });
    await first.close();
    // A retried append whose first attempt landed: the same seq again, then a crash mid-line.
    const text = await readFile(path, 'utf8');
    await appendFile(path, `${text.slice(text.indexOf('\n') + 1)}{"type":"claude:te`);

    const reopened = await IdeaHistory.open({ files: createLocalFiles(), path });
    const queued = reopened.append(runDrafts(2)[1] ?? { type: 'idea:status', ideaId, status: 'chatting' });
    const { events, isComplete } = await reopened.latest({ maxEvents: 10, maxBytes: 8 * 1024 * 1024 });
    expect(events.map((e) => e.type)).toEqual(['claude:text', 'run:started', 'claude:text']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, queued.seq]);
    expect(events[0]?.type === 'claude:text' && events[0].text).toBe(long);
    expect(isComplete).toBe(true);
    await reopened.close();
  });
});

describe('the conversation for the recap and the answerer', () => {
  it('is the newest messages, read from the end, not the start of a history larger than one read', async () => {
    const store = new IdeaStore({ files: createLocalFiles(), root: join(dir.path, 'ideas') });
    const meta = await store.create({ title: 'Tide clock', description: 'High and low water.' });
    await writeRuns();
    const size = (await stat(path)).size;
    const { files, read } = countingFiles(path);
    // One read (a replay page) holds at most 64 KiB: reading "since 0" would stop at the oldest runs.
    const history = await IdeaHistory.open({ files, path, readBytes: 64 * 1024 });
    read.bytes = 0;
    const recap = await sessionRecapFor(meta, history, `run-${String(RUNS)}`)();
    expect(recap).toContain(`Person: ask ${String(RUNS - 1)}\nClaude: answer ${String(RUNS - 1)}`);
    expect(recap).not.toContain(`ask ${String(RUNS)}\n`);
    expect(recap).not.toContain('ask 1\n');
    expect(recap).toContain(`the last ${String(RECAP_MESSAGES)} messages; earlier ones left out`);
    expect(read.bytes).toBeLessThan(size / 10);

    const { entries } = await readConversation(history, { maxEntries: 10 });
    expect(entries.map((m) => m.text).at(-1)).toBe(`answer ${String(RUNS)}`);
    expect(entries).toHaveLength(10);
    await history.close();
  });
});
