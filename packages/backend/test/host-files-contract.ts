import { describe, expect, it } from 'vitest';
import { caught } from '@catalyst/testkit';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { describeReadWithinContract, runOnHost } from './host-read-within-contract.ts';
import { watchRun, type HostTestContext } from './host-test-kit.ts';

/** The HostFiles half of the host contract (host-contract.ts). */

async function sortedList(host: HostTestContext['host'], path: string) {
  return (await host.list(path)).sort((x, y) => x.name.localeCompare(y.name));
}

export function describeHostFilesContract(
  getContext: () => HostTestContext,
  freshDir: () => Promise<string>,
): void {
  describe('files', () => {
    describeReadWithinContract(getContext, freshDir);

    it('writes, reads back and overwrites atomically: a reader sees old or new, never a mix', async () => {
      const { host } = getContext();
      const path = `${await freshDir()}/state.json`;
      const versions = ['a', 'b'].map((letter) => letter.repeat(1024 * 1024));
      await host.writeFileAtomic(path, versions[0] ?? '');
      const writing = { isActive: true };
      const writer = (async () => {
        for (let round = 1; round <= 6; round += 1)
          await host.writeFileAtomic(path, versions[round % 2] ?? '');
        writing.isActive = false;
      })();
      const seen = new Set<string>();
      while (writing.isActive) {
        const text = (await host.readFile(path)).toString('utf8');
        seen.add(versions.includes(text) ? text.charAt(0) : `torn:${String(text.length)}`);
      }
      await writer;
      expect([...seen].filter((entry) => entry.startsWith('torn'))).toEqual([]);
      expect((await host.readFile(path)).toString('utf8')).toBe(versions[0]);
    });

    it('leaves no temporary file behind', async () => {
      const { host } = getContext();
      const dir = await freshDir();
      await host.writeFileAtomic(`${dir}/one.txt`, Buffer.from('first'));
      await host.writeFileAtomic(`${dir}/one.txt`, 'second');
      expect(await host.list(dir)).toEqual([{ name: 'one.txt', kind: 'file' }]);
      expect((await host.readFile(`${dir}/one.txt`)).toString()).toBe('second');
    });

    it('appends, creating the file first', async () => {
      const { host } = getContext();
      const path = `${await freshDir()}/events.ndjson`;
      await host.appendFile(path, '{"a":1}\n');
      await host.appendFile(path, Buffer.from('{"b":2}\n'));
      expect((await host.readFile(path)).toString()).toBe('{"a":1}\n{"b":2}\n');
    });

    it('reads a byte range: short at the end of the file, empty past it, FILE_NOT_FOUND when missing', async () => {
      const { host } = getContext();
      const path = `${await freshDir()}/events.ndjson`;
      // Larger than one SFTP packet (32 KiB in OpenSSH), so a range spans several reads.
      const data = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `${String(i)}\n`).join(''));
      await host.writeFileAtomic(path, data);
      expect((await host.readRange(path, 0, 5)).toString()).toBe('0\n1\n2');
      expect((await host.readRange(path, 1000, 70_000)).equals(data.subarray(1000, 71_000))).toBe(true);
      expect((await host.readRange(path, data.length - 6, 100)).toString()).toBe('19999\n');
      expect((await host.readRange(path, data.length + 10, 100)).length).toBe(0);
      const error = await caught(host.readRange(`${path}.missing`, 0, 10));
      expect(isCatalystError(error) && error.code).toBe('FILE_NOT_FOUND');
    });

    it('makes nested directories, idempotently, and stats, lists and removes them', async () => {
      const { host } = getContext();
      const dir = await freshDir();
      await host.mkdirp(`${dir}/a/b/c`);
      await host.mkdirp(`${dir}/a/b/c`);
      await host.writeFileAtomic(`${dir}/a/file.txt`, '12345');
      expect(await host.stat(`${dir}/a/file.txt`)).toMatchObject({ kind: 'file', size: 5 });
      expect((await host.stat(`${dir}/a`)).kind).toBe('directory');
      const { modifiedMs } = await host.stat(`${dir}/a/file.txt`);
      expect(Math.abs(modifiedMs - Date.now())).toBeLessThan(60_000);
      const entries = await host.list(`${dir}/a`);
      expect(entries.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
        { name: 'b', kind: 'directory' },
        { name: 'file.txt', kind: 'file' },
      ]);
      await host.remove(`${dir}/a`);
      await host.remove(`${dir}/a`);
      expect(await host.list(dir)).toEqual([]);
    });

    // The idea store deletes an idea by renaming its folder into the trash, then removing it (issue 16, item 8).
    it('renames a directory with everything in it; a missing source is FILE_NOT_FOUND, naming it', async () => {
      const { host } = getContext();
      const dir = await freshDir();
      await host.mkdirp(`${dir}/idea/project`);
      await host.writeFileAtomic(`${dir}/idea/project/main.ts`, 'kept');
      await host.rename(`${dir}/idea`, `${dir}/trash-idea`);
      expect(await host.list(dir)).toEqual([{ name: 'trash-idea', kind: 'directory' }]);
      expect((await host.readFile(`${dir}/trash-idea/project/main.ts`)).toString()).toBe('kept');
      const error = await caught(host.rename(`${dir}/idea`, `${dir}/elsewhere`));
      expect(isCatalystError(error) && error.code).toBe('FILE_NOT_FOUND');
      expect(isCatalystError(error) && error.details['path']).toBe(`${dir}/idea`);
      expect(await host.list(dir)).toEqual([{ name: 'trash-idea', kind: 'directory' }]);
    });

    // rename(2) would replace a file, and a directory by an empty one; SFTP's plain rename refuses both (host.ts).
    it.each([
      ['a file onto a file', 'a.txt', 'b.txt'],
      ['a directory onto an empty directory', 'full', 'empty'],
      ['a directory onto a file', 'full', 'b.txt'],
      ['a file onto a directory', 'a.txt', 'empty'],
    ])('refuses to rename %s, leaving both as they were (FILE_ERROR)', async (_, from, to) => {
      const { host } = getContext();
      const dir = await freshDir();
      await host.writeFileAtomic(`${dir}/a.txt`, 'a');
      await host.writeFileAtomic(`${dir}/b.txt`, 'b');
      await host.mkdirp(`${dir}/empty`);
      await host.mkdirp(`${dir}/full`);
      await host.writeFileAtomic(`${dir}/full/inside.txt`, 'inside');
      const error = await caught(host.rename(`${dir}/${from}`, `${dir}/${to}`));
      expect(isCatalystError(error) && error.code).toBe('FILE_ERROR');
      expect(await sortedList(host, dir)).toEqual([
        { name: 'a.txt', kind: 'file' },
        { name: 'b.txt', kind: 'file' },
        { name: 'empty', kind: 'directory' },
        { name: 'full', kind: 'directory' },
      ]);
      expect((await host.readFile(`${dir}/a.txt`)).toString()).toBe('a');
      expect((await host.readFile(`${dir}/b.txt`)).toString()).toBe('b');
      expect(await host.list(`${dir}/empty`)).toEqual([]);
      expect((await host.readFile(`${dir}/full/inside.txt`)).toString()).toBe('inside');
    });

    // A build may leave `chmod -R 555` behind (issue 16, item 8). Root ignores the mode; other users need u+w.
    it('removes a tree holding read-only (0555) directories with files in them', async () => {
      const context = getContext();
      const { host } = context;
      const dir = await freshDir();
      await host.mkdirp(`${dir}/tree/locked/deeper`);
      await host.writeFileAtomic(`${dir}/tree/locked/file.txt`, 'x');
      await host.writeFileAtomic(`${dir}/tree/locked/deeper/file.txt`, 'y');
      const locked = [`${dir}/tree/locked`, `${dir}/tree/locked/deeper`];
      await runOnHost(context, ['chmod', '-R', '555', `${dir}/tree/locked`]);
      expect(await runOnHost(context, ['stat', '-c', '%a', ...locked])).toBe('555\n555\n');
      await host.remove(`${dir}/tree`);
      expect(await host.list(dir)).toEqual([]);
    });

    it('lists with lstat sizes and kinds, and resolves symlinks to real paths (the file browser, issue 13)', async () => {
      const context = getContext();
      const { host } = context;
      const dir = await freshDir();
      await host.mkdirp(`${dir}/sub`);
      await host.writeFileAtomic(`${dir}/file.txt`, '12345');
      await runOnHost(context, ['ln', '-s', '/etc', `${dir}/link`]);
      const entries = (await host.listWithStats(dir)).sort((x, y) => x.name.localeCompare(y.name));
      expect(entries.map(({ name, kind }) => ({ name, kind }))).toEqual([
        { name: 'file.txt', kind: 'file' },
        { name: 'link', kind: 'other' },
        { name: 'sub', kind: 'directory' },
      ]);
      expect(entries[0]?.size).toBe(5);
      expect(Math.abs((entries[0]?.modifiedMs ?? 0) - Date.now())).toBeLessThan(60_000);
      const real = await host.realpath(dir);
      expect(await host.realpath(`${dir}/sub/../file.txt`)).toBe(`${real}/file.txt`);
      expect(await host.realpath(`${dir}/link`)).toBe('/etc');
      const error = await caught(host.realpath(`${dir}/missing/deeper`));
      expect(isCatalystError(error) && error.code).toBe('FILE_NOT_FOUND');
    });

    it.each(['readFile', 'stat', 'list'] as const)(
      '%s of a missing path is FILE_NOT_FOUND, naming the path',
      async (op) => {
        const { host } = getContext();
        const path = `${await freshDir()}/missing`;
        const error = await caught(host[op](path));
        expect(isCatalystError(error) && error.code).toBe('FILE_NOT_FOUND');
        expect(isCatalystError(error) && error.details['path']).toBe(path);
      },
    );

    // Issue 39: Catalyst's own files (meta.json, the history, reviews) sit beside a build's project, and one Bash
    // step can put a FIFO in their place. Opening a FIFO waits for a writer: over SFTP it held the host's one
    // session, locally one of libuv's threads. What is not a regular file is refused without being opened.
    it('readFile and readRange refuse a FIFO without opening it, and a symlink: a waiting writer still waits', async () => {
      const context = getContext();
      const { host } = context;
      const dir = await freshDir();
      await runOnHost(context, ['mkfifo', `${dir}/meta.json`]);
      await host.writeFileAtomic(`${dir}/real.json`, '{}');
      await runOnHost(context, ['ln', '-s', 'real.json', `${dir}/link.json`]);
      const writer = await host.startRun({
        argv: ['sh', '-c', 'echo writing; echo hi > meta.json; echo wrote'],
        cwd: dir,
        limits: { graceMs: 1000 },
      });
      const watch = watchRun(writer);
      await watch.waitForStdout('writing');
      const started = performance.now();
      for (const path of [`${dir}/meta.json`, `${dir}/link.json`]) {
        // One call at a time: a second refused while the first was awaited would be an unhandled rejection.
        for (const read of [() => host.readFile(path), () => host.readRange(path, 0, 10)]) {
          const error = await caught(read());
          expect(isCatalystError(error) && error.code, path).toBe('FILE_ERROR');
          expect(error instanceof Error && error.message, path).toMatch(/not a regular file/);
          expect(isCatalystError(error) && error.details['path']).toBe(path);
        }
      }
      expect(performance.now() - started).toBeLessThan(5_000);
      expect((await host.readFile(`${dir}/real.json`)).toString()).toBe('{}');
      await host.killRun(writer.runTag);
      const { stdout, outcome } = await watch.finish();
      expect({ stdout, outcome }).toEqual({ stdout: 'writing\n', outcome: { kind: 'cancelled' } });
    });

    // As root nothing in a scratch dir is unwritable; a path below a regular file fails for every user.
    it('a write below a regular file is a typed file error, naming the path', async () => {
      const { host } = getContext();
      const dir = await freshDir();
      await host.writeFileAtomic(`${dir}/plain`, 'x');
      const error = await caught(host.writeFileAtomic(`${dir}/plain/child`, 'y'));
      expect(isCatalystError(error) && ['FILE_NOT_FOUND', 'FILE_ERROR'].includes(error.code)).toBe(true);
      expect(isCatalystError(error) && error.details['path']).toBe(`${dir}/plain/child`);
      expect(await host.list(dir)).toEqual([{ name: 'plain', kind: 'file' }]);
    });

    it('creating where the user may not is PERMISSION_DENIED', async () => {
      const { host, permissionDeniedPath } = getContext();
      if (permissionDeniedPath === undefined) throw new Error('the setup gives no permissionDeniedPath');
      const error = await caught(host.writeFileAtomic(permissionDeniedPath, 'x'));
      expect(isCatalystError(error) && error.code).toBe('PERMISSION_DENIED');
      const mkdirError = await caught(host.mkdirp(`${permissionDeniedPath}-dir/sub`));
      expect(isCatalystError(mkdirError) && mkdirError.code).toBe('PERMISSION_DENIED');
    });
  });
}
