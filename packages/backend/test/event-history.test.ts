import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RelayEvent, RelayEventDraft } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory, type HistoryFiles } from '../src/ideas/event-history.ts';
import type { CatalystError } from '../src/core/catalyst-error.ts';
import { lineDraft } from './history-test-kit.ts';

const ideaId = 'idea-0123456789abcdef';
let dir: TempDir;
let path: string;

beforeEach(async () => {
  dir = await createTempDir('history');
  path = join(dir.path, 'events.ndjson');
});
afterEach(() => dir.remove());

const text = (n: number): RelayEventDraft => lineDraft(ideaId, n, 'msg_1');

function seqs(events: RelayEvent[]): number[] {
  return events.map((event) => event.seq);
}

describe('IdeaHistory on real files', () => {
  it('numbers events from 1, writes them in batches, and reads them back after a restart', async () => {
    let appends = 0;
    const local = createLocalFiles();
    const files: HistoryFiles = {
      ...local,
      appendFile: (p, data) => (p === path && appends++, local.appendFile(p, data)),
    };
    const history = await IdeaHistory.open({ files, path });
    for (let n = 1; n <= 50; n++) expect(history.append(text(n)).seq).toBe(n);
    await history.close();
    expect(appends).toBe(1);

    const reopened = await IdeaHistory.open({ files: local, path });
    expect(reopened.lastSeq).toBe(50);
    expect(reopened.append(text(51)).seq).toBe(51);
    await reopened.flush();
    expect(seqs(await reopened.since(48))).toEqual([49, 50, 51]);
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(51);
  });

  it('skips a partial last line left by a crash, and goes on numbering after the last whole event', async () => {
    const first = await IdeaHistory.open({ files: createLocalFiles(), path });
    first.append(text(1));
    first.append(text(2));
    await first.close();
    await appendFile(path, '{"type":"claude:text","ideaId":"idea-01');
    const reopened = await IdeaHistory.open({ files: createLocalFiles(), path });
    expect(reopened.lastSeq).toBe(2);
    reopened.append(text(3));
    await reopened.close();
    expect(seqs(await (await IdeaHistory.open({ files: createLocalFiles(), path })).since(0))).toEqual([
      1, 2, 3,
    ]);
  });

  it('skips and reports a corrupt line instead of failing', async () => {
    const good = await IdeaHistory.open({ files: createLocalFiles(), path });
    good.append(text(1));
    await good.close();
    await appendFile(path, 'not json\n');
    const errors: CatalystError[] = [];
    const reopened = await IdeaHistory.open({
      files: createLocalFiles(),
      path,
      onError: (e) => errors.push(e),
    });
    expect(seqs(await reopened.since(0))).toEqual([1]);
    expect(errors.map((e) => e.code)).toContain('HISTORY_CORRUPT');
  });

  it('replays from the file and then streams live, with no gap and no duplicate', async () => {
    const history = await IdeaHistory.open({ files: createLocalFiles(), path, memoryEvents: 5 });
    for (let n = 1; n <= 30; n++) history.append(text(n));
    await history.flush();
    const received: number[] = [];
    const subscribing = history.subscribe(3, (event) => received.push(event.seq));
    // Appended while the replay is being read from the file: held back, then delivered in order.
    for (let n = 31; n <= 35; n++) history.append(text(n));
    const subscription = await subscribing;
    history.append(text(36));
    expect(received).toEqual(Array.from({ length: 33 }, (_, i) => i + 4));
    expect(subscription.lastSeq).toBe(30);
    subscription.unsubscribe();
    history.append(text(37));
    expect(received.at(-1)).toBe(36);
    await history.close();
  });

  it('serves a recent sinceSeq from memory without reading the file', async () => {
    const local = createLocalFiles();
    let reads = 0;
    const files: HistoryFiles = { ...local, readRange: (p, at, n) => (reads++, local.readRange(p, at, n)) };
    await writeFile(path, '');
    const history = await IdeaHistory.open({ files, path });
    reads = 0;
    for (let n = 1; n <= 10; n++) history.append(text(n));
    expect(seqs(await history.since(7))).toEqual([8, 9, 10]);
    expect(reads).toBe(0);
    await history.close();
  });
});
