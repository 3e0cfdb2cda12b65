import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically, writeFileSynced } from './atomic-file.ts';

/**
 * What can be seen of a write that survives a power cut: the flushes themselves (fsync of the file before its rename,
 * of the folder after) are not observable without a crash, and are read in review (issue 39).
 */
describe('writeFileAtomically', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-atomic-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('replaces the file whole (0600, its folder made 0700) and leaves nothing beside it', async () => {
    const path = join(root, 'config', 'state.json');
    await writeFileAtomically(path, 'first\n');
    await writeFileAtomically(path, 'second\n');
    expect(await readFile(path, 'utf8')).toBe('second\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'config'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(root, 'config'))).toEqual(['state.json']);
  });

  it('leaves no temporary file when the rename fails', async () => {
    const path = join(root, 'state.json');
    await mkdir(path);
    await writeFile(join(path, 'inside'), 'x');
    await expect(writeFileAtomically(path, 'body')).rejects.toThrow();
    expect(await readdir(root)).toEqual(['state.json']);
  });
});

describe('writeFileSynced', () => {
  it('never writes through a file that is already there', async () => {
    const root = await mkdtemp(join(tmpdir(), 'catalyst-atomic-'));
    const path = join(root, 'token');
    await writeFile(path, 'theirs');
    await expect(writeFileSynced(path, 'ours')).rejects.toThrow(/EEXIST/);
    expect(await readFile(path, 'utf8')).toBe('theirs');
    await rm(root, { recursive: true, force: true });
  });
});
