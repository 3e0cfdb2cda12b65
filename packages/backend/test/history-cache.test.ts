import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory } from '../src/ideas/event-history.ts';
import { HistoryCache } from '../src/ideas/history-cache.ts';

// Issue 16 item 10: histories with no subscriber and no run are closed, least recently used first.

let dir: TempDir;
beforeEach(async () => {
  dir = await createTempDir('history-cache');
});
afterEach(() => dir.remove());

function cacheOf(running: Set<string>, opened: string[]): HistoryCache {
  return new HistoryCache({
    maxIdle: 2,
    isRunning: (id) => running.has(id),
    open: (id) => {
      opened.push(id);
      return IdeaHistory.open({ files: createLocalFiles(), path: join(dir.path, `${id}.ndjson`) });
    },
  });
}

describe('HistoryCache', () => {
  it('keeps histories with a subscriber or a run, and closes the idle ones beyond its bound, oldest first', async () => {
    const running = new Set(['run']);
    const opened: string[] = [];
    const cache = cacheOf(running, opened);
    const watched = await cache.get('watched');
    const subscription = await watched.subscribe(0, () => undefined);
    await cache.get('run');
    for (const id of ['a', 'b', 'c', 'd']) await cache.get(id);
    await cache.get('e');
    // Idle: a, b, c, d, e → only the two used last stay; watched and run are never idle.
    expect(cache.openCount).toBe(4);
    await cache.get('watched');
    await cache.get('run');
    await cache.get('e');
    expect(opened.filter((id) => ['watched', 'run', 'e'].includes(id))).toEqual(['watched', 'run', 'e']);
    await cache.get('a');
    expect(opened.filter((id) => id === 'a')).toEqual(['a', 'a']);
    subscription.unsubscribe();
    running.clear();
    cache.evictIdle();
    expect(cache.openCount).toBe(2);
    // Nothing may still be written when the folder is removed (afterEach): the evictions' closes are under way.
    await cache.closeAll();
  });

  it('reopens an evicted history only after its close wrote everything, so its numbering goes on', async () => {
    const cache = cacheOf(new Set(), []);
    const first = await cache.get('x');
    first.append({ type: 'idea:status', ideaId: 'idea-0123456789abcdef', runId: 'r', status: 'chatting' });
    await first.flush();
    for (const id of ['y', 'z', 'w']) await cache.get(id);
    const again = await cache.get('x');
    expect(again).not.toBe(first);
    expect(again.lastSeq).toBe(1);
    await cache.closeAll();
  });
});
