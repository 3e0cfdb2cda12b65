import { describe, expect, it } from 'vitest';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import type { HostTestContext } from './host-test-kit.ts';

/** The HostFiles half of the host contract (host-contract.ts). */

async function caught(action: Promise<unknown>): Promise<unknown> {
  try {
    await action;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export function describeHostFilesContract(
  getContext: () => HostTestContext,
  freshDir: () => Promise<string>,
): void {
  describe('files', () => {
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
