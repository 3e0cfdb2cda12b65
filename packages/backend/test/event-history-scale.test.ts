import { appendFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory } from '../src/ideas/event-history.ts';
import { countingFiles } from './history-test-kit.ts';

// Issue 16 item 6: opening and paging a long history reads only the bytes asked for, never the whole file.

const ideaId = 'idea-0123456789abcdef';
const EVENTS = 50_000;
let dir: TempDir;
let path: string;

beforeEach(async () => {
  dir = await createTempDir('history-scale');
  path = join(dir.path, 'events.ndjson');
  // Written directly: small lines, many of them, cheaply (~6 MB).
  const ts = new Date().toISOString();
  const lines: string[] = [];
  for (let seq = 1; seq <= EVENTS; seq++) {
    const event: RelayEvent = { type: 'idea:status', ideaId, runId: 'run-1', seq, ts, status: 'chatting' };
    lines.push(`${JSON.stringify(event)}\n`);
  }
  await writeFile(path, lines.join(''));
});
afterEach(() => dir.remove());

describe('IdeaHistory on a long history', () => {
  it('opens from its tail once indexed, and reads a page near the end without reading the rest', async () => {
    const size = (await stat(path)).size;
    const first = countingFiles(path);
    // No index yet: one streaming scan builds it.
    const building = await IdeaHistory.open({ files: first.files, path });
    expect(building.lastSeq).toBe(EVENTS);
    await building.close();
    expect((await stat(join(dir.path, 'events.idx'))).size).toBeGreaterThan(0);

    const { files, read } = countingFiles(path);
    const history = await IdeaHistory.open({ files, path });
    expect(history.lastSeq).toBe(EVENTS);
    expect(read.bytes).toBeLessThan(size / 20);
    read.bytes = 0;
    const page = await history.since(EVENTS - 200, 200);
    expect(page.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => EVENTS - 199 + i));
    expect(read.bytes).toBeLessThan(size / 20);
    read.bytes = 0;
    const middle = await history.since(25_000, 200);
    expect(middle[0]?.seq).toBe(25_001);
    expect(read.bytes).toBeLessThan(size / 20);
    await history.close();
  });

  it('caps what one read holds, and pages through everything in order', async () => {
    const history = await IdeaHistory.open({ files: createLocalFiles(), path, readBytes: 64 * 1024 });
    let since = 0;
    let pages = 0;
    for (;;) {
      const page = await history.since(since, 5000);
      if (page.length === 0) break;
      expect(page[0]?.seq).toBe(since + 1);
      expect(page.length).toBeLessThan(5000);
      since = page.at(-1)?.seq ?? since;
      pages++;
    }
    expect(since).toBe(EVENTS);
    expect(pages).toBeGreaterThan(EVENTS / 5000);
    await history.close();
  });

  it('rebuilds an index that is missing or no longer matches the history', async () => {
    await (await IdeaHistory.open({ files: createLocalFiles(), path })).close();
    const indexPath = join(dir.path, 'events.idx');
    await appendFile(indexPath, '999999 123\ngarbage\n');
    let history = await IdeaHistory.open({ files: createLocalFiles(), path });
    expect((await history.since(30_000, 1))[0]?.seq).toBe(30_001);
    await history.close();
    await rm(indexPath);
    history = await IdeaHistory.open({ files: createLocalFiles(), path });
    expect((await history.since(EVENTS - 1))[0]?.seq).toBe(EVENTS);
    expect((await history.since(10, 1))[0]?.seq).toBe(11);
    await history.close();
  });
});
