import { spawn } from 'node:child_process';
import { chmod, readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdeaMetaSchema } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { createLocalFiles } from '../src/host/local-files.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { IdeaStore } from '../src/ideas/idea-store.ts';
import { tightenIdeaModes } from '../src/ideas/private-modes.ts';
import { bundledFixture } from './fixture-bundle.ts';

let dir: TempDir;
let store: IdeaStore;

beforeEach(async () => {
  dir = await createTempDir('ideas');
  store = new IdeaStore({ files: createLocalFiles(), root: join(dir.path, 'ideas') });
});
afterEach(() => dir.remove());

describe('IdeaStore on real files', () => {
  it('creates an idea folder with a valid meta.json and an empty project/', async () => {
    const meta = await store.create({ title: 'A kite tracker', description: 'Track kites.' });
    expect(meta).toMatchObject({
      status: 'captured',
      title: 'A kite tracker',
      totals: { runs: 0, costUsd: 0 },
    });
    const paths = store.paths(meta.id);
    expect(IdeaMetaSchema.parse(JSON.parse(await readFile(paths.meta, 'utf8')))).toEqual(meta);
    expect(await readdir(paths.project)).toEqual([]);
    expect(await store.get(meta.id)).toEqual(meta);
  });

  it('makes the root and the idea folder 0700 and meta.json 0600, and an older idea so when tightened', async () => {
    const root = join(dir.path, 'ideas');
    const meta = await store.create({ title: 'Private', description: '' });
    const paths = store.paths(meta.id);
    const modes = async () =>
      Promise.all(
        [root, paths.dir, paths.meta].map(async (path) => ((await stat(path)).mode & 0o7777).toString(8)),
      );
    expect(await modes()).toEqual(['700', '700', '600']);
    await store.update(meta.id, (current) => ({ ...current, title: 'Still private' }));
    expect(await modes()).toEqual(['700', '700', '600']);
    // As an older Catalyst left them: the umask's modes.
    for (const path of [root, paths.dir]) await chmod(path, 0o755);
    await chmod(paths.meta, 0o644);
    const host = createLocalHost();
    try {
      await tightenIdeaModes(host, root);
      // A root not made yet: nothing to do.
      await tightenIdeaModes(host, join(dir.path, 'missing'));
    } finally {
      await host.close();
    }
    expect(await modes()).toEqual(['700', '700', '600']);
  });

  it('refuses ids that are not ours before touching a file', async () => {
    for (const bad of ['../etc', 'idea-../../x', 'idea-ABCDEFGHIJKLMNOP', '', 'idea-aaaaaaaaaaaaaaa\0']) {
      await expect(store.get(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await expect(store.get('idea-0000000000000000')).rejects.toMatchObject({ code: 'IDEA_NOT_FOUND' });
  });

  it('serialises concurrent updates of one idea so none is lost', async () => {
    const { id } = await store.create({ title: 'Counter', description: '' });
    await Promise.all(
      Array.from({ length: 40 }, () =>
        store.update(id, (meta) => ({ ...meta, totals: { ...meta.totals, runs: meta.totals.runs + 1 } })),
      ),
    );
    expect((await store.get(id)).totals.runs).toBe(40);
  });

  it('lists ideas, reports a corrupt one instead of dropping it, and ignores other folders', async () => {
    const good = await store.create({ title: 'Good', description: '' });
    const broken = await store.create({ title: 'Broken', description: '' });
    await writeFile(store.paths(broken.id).meta, '{"schemaVersion":1,');
    await mkdir(join(dir.path, 'ideas', 'not-an-idea'));
    const listed = await store.list();
    expect(listed.map((entry) => entry.id).sort()).toEqual([good.id, broken.id].sort());
    expect(listed.find((entry) => entry.id === good.id)?.meta?.title).toBe('Good');
    expect(listed.find((entry) => entry.id === broken.id)?.error).toMatch(/not valid JSON/);
  });

  it('lists nothing when the root does not exist yet, and deletes an idea with its files', async () => {
    expect(await store.list()).toEqual([]);
    const meta = await store.create({ title: 'Short-lived', description: '' });
    await writeFile(join(store.paths(meta.id).project, 'main.py'), 'print(1)\n');
    await store.delete(meta.id);
    await expect(store.get(meta.id)).rejects.toMatchObject({ code: 'IDEA_NOT_FOUND' });
    expect(await store.list()).toEqual([]);
  });

  it('never leaves meta.json corrupt when the writer is killed mid-write (repeated)', async () => {
    const { id } = await store.create({ title: 'Crash test', description: '' });
    const root = join(dir.path, 'ideas');
    for (let round = 0; round < 8; round++) {
      // One process (the fixture bundled), so SIGKILL lands on the writer itself.
      const fixture = bundledFixture(join(import.meta.dirname, 'fixtures', 'meta-writer.ts'));
      const child = spawn(process.execPath, [fixture, root, id], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const writesBeforeKill = 5 + round * 7;
      let writes = 0;
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        writes += chunk.split('\n').filter(Boolean).length;
        if (writes >= writesBeforeKill) child.kill('SIGKILL');
      });
      await once(child, 'exit');
      const meta = await store.get(id);
      expect(meta.totals.runs).toBeGreaterThanOrEqual(writesBeforeKill);
    }
  });
});
