import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalSshConfigSources, globPaths } from './ssh-config-files.ts';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalyst-ssh-glob-'));
  await mkdir(join(dir, 'conf.d', 'sub'), { recursive: true });
  for (const name of ['b.conf', 'a.conf', '.hidden.conf', 'c.txt', 'x1.conf', 'x2.conf', '[odd].conf']) {
    await writeFile(join(dir, 'conf.d', name), `# ${name}\n`);
  }
});

afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('globPaths (glob(3) as ssh calls it)', () => {
  it('lists matches in lexical order, leaving dot files to patterns that start with a dot', async () => {
    const names = async (pattern: string) =>
      (await globPaths(join(dir, pattern))).map((path) => path.slice(dir.length + 1));
    expect(await names('conf.d/*.conf')).toEqual([
      'conf.d/[odd].conf',
      'conf.d/a.conf',
      'conf.d/b.conf',
      'conf.d/x1.conf',
      'conf.d/x2.conf',
    ]);
    expect(await names('conf.d/.*.conf')).toEqual(['conf.d/.hidden.conf']);
    expect(await names('conf.d/x?.conf')).toEqual(['conf.d/x1.conf', 'conf.d/x2.conf']);
    expect(await names('conf.d/[ab].conf')).toEqual(['conf.d/a.conf', 'conf.d/b.conf']);
    expect(await names('conf.d/[!ab]*.conf')).toEqual([
      'conf.d/[odd].conf',
      'conf.d/x1.conf',
      'conf.d/x2.conf',
    ]);
    expect(await names('conf.d/\\[odd].conf')).toEqual(['conf.d/[odd].conf']);
    expect(await names('*/a.conf')).toEqual(['conf.d/a.conf']);
  });

  it('returns a plain path only when it exists, and nothing for no match', async () => {
    expect(await globPaths(join(dir, 'conf.d', 'a.conf'))).toEqual([join(dir, 'conf.d', 'a.conf')]);
    expect(await globPaths(join(dir, 'conf.d', 'missing.conf'))).toEqual([]);
    expect(await globPaths(join(dir, 'nowhere', '*'))).toEqual([]);
  });
});

describe('createLocalSshConfigSources', () => {
  it('reads a missing file as undefined and a directory as empty, as ssh does', async () => {
    const sources = createLocalSshConfigSources({});
    await expect(sources.readFile(join(dir, 'conf.d', 'a.conf'))).resolves.toBe('# a.conf\n');
    await expect(sources.readFile(join(dir, 'missing'))).resolves.toBeUndefined();
    await expect(sources.readFile(join(dir, 'conf.d', 'sub'))).resolves.toBe('');
    expect((await sources.stat(join(dir, 'conf.d', 'a.conf'))).mode & 0o777).toBeGreaterThan(0);
  });
});
