import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdeaListResponseSchema, IdeaResponseSchema, type IdeaView } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { loadConfig } from '../src/server/config.ts';

// Two Catalysts on one ideas folder (issue 40, item 8): each signs the ideas it makes with its own id, and lists the
// other's as made elsewhere, so its page can say how many there are and let a person choose to show them. The id
// is kept across restarts; an idea made before ideas were signed is every Catalyst's own.

const TOKEN = 'made-elsewhere-test-token-0123456789abcdefgh';
let dir: TempDir;

beforeAll(async () => {
  dir = await createTempDir('made-elsewhere');
});
afterAll(async () => {
  await dir.remove();
});

async function start(name: string): Promise<RunningCatalyst> {
  const config = loadConfig({
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: join(dir.path, name),
    CATALYST_IDEAS_ROOT: join(dir.path, 'ideas'),
    CATALYST_LOG_LEVEL: 'silent',
  });
  return startCatalyst({ config, logger: pino({ level: 'silent' }) });
}

async function api(catalyst: RunningCatalyst, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${catalyst.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  expect(response.ok, `${path}: ${String(response.status)}`).toBe(true);
  return response.json();
}

async function create(catalyst: RunningCatalyst, title: string): Promise<IdeaView> {
  const body = JSON.stringify({ title, description: '' });
  return IdeaResponseSchema.parse(await api(catalyst, '/api/ideas', { method: 'POST', body })).idea;
}

async function listed(catalyst: RunningCatalyst): Promise<Map<string, boolean>> {
  const { ideas } = IdeaListResponseSchema.parse(await api(catalyst, '/api/ideas'));
  return new Map(ideas.map((idea) => [idea.meta?.title ?? idea.id, idea.madeElsewhere === true]));
}

describe('ideas made by another Catalyst on the same ideas folder', () => {
  it('are listed and read as made elsewhere, by both, across a restart; unsigned ones are everyone’s', async () => {
    let first = await start('first');
    const second = await start('second');
    try {
      const ours = await create(first, 'The first one’s');
      expect(ours.meta?.madeBy).toMatch(/^[0-9a-f]{16}$/);
      expect(ours.madeElsewhere).toBeUndefined();
      const theirs = await create(second, 'The second one’s');
      expect(theirs.meta?.madeBy).not.toBe(ours.meta?.madeBy);

      // An idea made before Catalysts signed theirs.
      const old = await create(first, 'Made long ago');
      const metaPath = join(dir.path, 'ideas', old.id, 'meta.json');
      const { madeBy: _dropped, ...unsigned } = JSON.parse(await readFile(metaPath, 'utf8')) as Record<
        string,
        unknown
      >;
      await writeFile(metaPath, JSON.stringify(unsigned));

      const expected = (mine: string) =>
        new Map([
          ['The first one’s', mine !== 'first'],
          ['The second one’s', mine !== 'second'],
          ['Made long ago', false],
        ]);
      expect(await listed(first)).toEqual(expected('first'));
      expect(await listed(second)).toEqual(expected('second'));
      const opened = IdeaResponseSchema.parse(await api(second, `/api/ideas/${ours.id}`)).idea;
      expect(opened.madeElsewhere).toBe(true);

      // Restarted on its config folder, the first is the same Catalyst: its ideas are still its own.
      await first.close();
      first = await start('first');
      expect(await listed(first)).toEqual(expected('first'));
    } finally {
      await first.close();
      await second.close();
    }
  });
});
