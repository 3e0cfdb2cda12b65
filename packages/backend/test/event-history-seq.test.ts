import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RelayEvent, RelayEventDraft } from '@catalyst/protocol';
import { createTempDir, waitUntil, type TempDir } from '@catalyst/testkit';
import { CatalystError } from '../src/core/catalyst-error.ts';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory, type HistoryFiles } from '../src/ideas/event-history.ts';
import { lineDraft } from './history-test-kit.ts';

// Issue 16 item 7: a seq once shown is never handed out again, and an append that fails is retried, not dropped.

const ideaId = 'idea-0123456789abcdef';
let dir: TempDir;
let path: string;

beforeEach(async () => {
  dir = await createTempDir('history-seq');
  path = join(dir.path, 'events.ndjson');
});
afterEach(() => dir.remove());

const text = (n: number): RelayEventDraft => lineDraft(ideaId, n, 'm');

/** Local files whose writes to one path fail while `failing` says so (a read-only file, a full disk). */
function failingFiles(target: () => string): { files: HistoryFiles; failing: { isOn: boolean } } {
  const local = createLocalFiles();
  const failing = { isOn: false };
  const refuse = (p: string) =>
    failing.isOn && p === target()
      ? Promise.reject(new CatalystError('PERMISSION_DENIED', `${p}: denied`))
      : undefined;
  return {
    failing,
    files: {
      ...local,
      appendFile: (p, data) => refuse(p) ?? local.appendFile(p, data),
      writeFileAtomic: (p, data) => refuse(p) ?? local.writeFileAtomic(p, data),
    },
  };
}

async function linesOnFile(): Promise<number[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as RelayEvent).seq);
}

describe('IdeaHistory numbering and failed appends', () => {
  it('after a crash that lost the last batch, numbers above every seq that was shown', async () => {
    const first = await IdeaHistory.open({ files: createLocalFiles(), path });
    for (let n = 1; n <= 3; n++) first.append(text(n));
    await first.flush();
    // Shown to browsers, then the process dies before the 25 ms batch is written (no flush, no close).
    const shown = [first.append(text(4)).seq, first.append(text(5)).seq];
    expect(shown).toEqual([4, 5]);

    const reopened = await IdeaHistory.open({ files: createLocalFiles(), path });
    expect(reopened.newestEventSeq).toBe(3);
    expect(reopened.lastSeq).toBeGreaterThanOrEqual(5);
    expect(reopened.append(text(6)).seq).toBeGreaterThan(5);
    await reopened.close();
    await first.close();
  });

  it('after a clean close, numbering goes on without a gap', async () => {
    const first = await IdeaHistory.open({ files: createLocalFiles(), path });
    for (let n = 1; n <= 3; n++) first.append(text(n));
    await first.close();
    const reopened = await IdeaHistory.open({ files: createLocalFiles(), path });
    expect(reopened.append(text(4)).seq).toBe(4);
    await reopened.close();
  });

  it('keeps a failed batch queued and readable, and retries it until it is written', async () => {
    const { files, failing } = failingFiles(() => path);
    const errors: CatalystError[] = [];
    const history = await IdeaHistory.open({ files, path, maxRetryMs: 20, onError: (e) => errors.push(e) });
    history.append(text(1));
    await history.flush();
    failing.isOn = true;
    for (let n = 2; n <= 4; n++) history.append(text(n));
    await history.flush();
    expect(errors.map((e) => e.code)).toContain('HISTORY_CORRUPT');
    expect(history.isIdle).toBe(false);
    expect((await history.since(0)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(await linesOnFile()).toEqual([1]);
    failing.isOn = false;
    await waitUntil(async () => (await linesOnFile()).length === 4, { timeoutMs: 5000, what: 'the retry' });
    expect(await linesOnFile()).toEqual([1, 2, 3, 4]);
    expect(history.isIdle).toBe(true);
    await history.close();
  });

  it('shows no event whose seq is not reserved on the host yet', async () => {
    const { files, failing } = failingFiles(() => join(dir.path, 'events.seq'));
    failing.isOn = true;
    const history = await IdeaHistory.open({ files, path, maxRetryMs: 20 });
    const seen: number[] = [];
    const subscription = await history.subscribe(0, (event) => seen.push(event.seq));
    history.append(text(1));
    history.append(text(2));
    expect(seen).toEqual([]);
    expect(await history.since(0)).toEqual([]);
    failing.isOn = false;
    await waitUntil(() => seen.length === 2, { timeoutMs: 5000, what: 'the reservation retry' });
    expect(seen).toEqual([1, 2]);
    subscription.unsubscribe();
    await history.close();
  });

  it('starts an append after a torn one on a line of its own', async () => {
    const local = createLocalFiles();
    let isTorn = false;
    const files: HistoryFiles = {
      ...local,
      // Half the batch lands, then the write fails (a disk filling up mid-write).
      appendFile: async (p, data) => {
        if (!isTorn || p !== path) return local.appendFile(p, data);
        isTorn = false;
        await local.appendFile(p, data.slice(0, 20));
        throw new CatalystError('FILE_ERROR', 'no space left');
      },
    };
    const history = await IdeaHistory.open({ files, path, maxRetryMs: 20 });
    history.append(text(1));
    await history.flush();
    isTorn = true;
    history.append(text(2));
    await history.flush();
    await history.flush();
    await history.close();
    const reopened = await IdeaHistory.open({ files: local, path });
    expect((await reopened.since(0)).map((e) => e.seq)).toEqual([1, 2]);
    await reopened.close();
  });
});
