import { describe, expect, it } from 'vitest';
import { caught } from '@catalyst/testkit';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { watchRun, type HostTestContext } from './host-test-kit.ts';

/**
 * HostFiles.readWithin, part of the host files contract (host-files-contract.ts): a project's file or folder
 * resolved, checked and read in one step on the host, and a FIFO never opened (issue 25, findings 2 and 10).
 */

/** Runs a short command on the host as its user (what a build would do there); returns its stdout. */
export async function runOnHost(context: HostTestContext, argv: string[]): Promise<string> {
  const handle = await context.host.startRun({ argv, cwd: context.scratchDir });
  const { stdout, stderr, outcome } = await watchRun(handle).finish();
  expect({ outcome, stderr }).toEqual({ outcome: { kind: 'exited', code: 0, signal: null }, stderr: '' });
  return stdout;
}

export function describeReadWithinContract(
  getContext: () => HostTestContext,
  freshDir: () => Promise<string>,
): void {
  describe('readWithin', () => {
    it('reads within a root: a file (its first bytes), a folder (lstat kinds), a symlink that stays inside', async () => {
      const context = getContext();
      const { host } = context;
      const root = `${await freshDir()}/project`;
      await host.mkdirp(`${root}/src`);
      await host.writeFileAtomic(`${root}/src/main.ts`, 'code\n');
      await host.writeFileAtomic(`${root}/big.txt`, 'x'.repeat(100));
      await runOnHost(context, ['ln', '-s', 'src/main.ts', `${root}/inside-link`]);
      await runOnHost(context, ['ln', '-s', '/etc', `${root}/etc-link`]);
      const file = await host.readWithin({ root, path: 'src/main.ts', maxBytes: 1000 });
      expect(file).toMatchObject({ kind: 'file', inside: 'src/main.ts', size: 5 });
      expect(file.kind === 'file' && file.data.toString()).toBe('code\n');
      expect(Math.abs((file.kind === 'file' ? file.modifiedMs : 0) - Date.now())).toBeLessThan(60_000);
      const big = await host.readWithin({ root, path: 'big.txt', maxBytes: 10 });
      expect(big.kind === 'file' && { size: big.size, data: big.data.toString() }).toEqual({
        size: 100,
        data: 'x'.repeat(10),
      });
      const link = await host.readWithin({ root, path: 'inside-link', maxBytes: 1000 });
      expect(link.kind === 'file' && { inside: link.inside, data: link.data.toString() }).toEqual({
        inside: 'src/main.ts',
        data: 'code\n',
      });
      const folder = await host.readWithin({ root, path: '', maxBytes: 0 });
      expect(folder.kind === 'directory' && folder.inside).toBe('');
      const entries = folder.kind === 'directory' ? folder.entries : [];
      expect(
        entries.map(({ name, kind }) => ({ name, kind })).sort((x, y) => x.name.localeCompare(y.name)),
      ).toEqual([
        { name: 'big.txt', kind: 'file' },
        { name: 'etc-link', kind: 'other' },
        { name: 'inside-link', kind: 'other' },
        { name: 'src', kind: 'directory' },
      ]);
      expect(entries.find((entry) => entry.name === 'big.txt')?.size).toBe(100);
    });

    it('refuses a path leading outside the root, a root that is a symlink, and says what is missing', async () => {
      const context = getContext();
      const { host } = context;
      const dir = await freshDir();
      const root = `${dir}/project`;
      await host.mkdirp(`${root}/src`);
      await host.writeFileAtomic(`${dir}/secret.txt`, 'outside');
      await runOnHost(context, ['ln', '-s', '/etc', `${root}/etc-link`]);
      await runOnHost(context, ['ln', '-s', '../secret.txt', `${root}/secret-link`]);
      await runOnHost(context, ['ln', '-s', root, `${dir}/linked-project`]);
      for (const path of ['etc-link', 'etc-link/hostname', 'secret-link']) {
        expect(await host.readWithin({ root, path, maxBytes: 100 }), path).toEqual({
          kind: 'refused',
          reason: 'outside',
        });
      }
      expect(await host.readWithin({ root: `${dir}/linked-project`, path: 'src', maxBytes: 0 })).toEqual({
        kind: 'refused',
        reason: 'root',
      });
      for (const [path, at] of [
        ['missing.txt', `${root}/missing.txt`],
        ['src/missing/deeper', `${root}/src/missing/deeper`],
      ] as const) {
        const error = await caught(host.readWithin({ root, path, maxBytes: 100 }));
        expect(isCatalystError(error) && { code: error.code, path: error.details['path'] }).toEqual({
          code: 'FILE_NOT_FOUND',
          path: at,
        });
      }
    });

    // Issue 25, findings 2 and 10: an open() of a FIFO waits for a writer; readWithin never opens one.
    it('reports a FIFO as other without opening it: a writer waiting for a reader still waits', async () => {
      const context = getContext();
      const { host } = context;
      const root = `${await freshDir()}/project`;
      await host.mkdirp(root);
      await runOnHost(context, ['mkfifo', `${root}/package.json`]);
      const writer = await host.startRun({
        argv: ['sh', '-c', 'echo writing; echo hi > package.json; echo wrote'],
        cwd: root,
        limits: { graceMs: 1000 },
      });
      const watch = watchRun(writer);
      await watch.waitForStdout('writing');
      const started = performance.now();
      expect(await host.readWithin({ root, path: 'package.json', maxBytes: 100 })).toEqual({
        kind: 'other',
        inside: 'package.json',
        what: 'fifo',
      });
      const folder = await host.readWithin({ root, path: '', maxBytes: 0 });
      expect(folder.kind === 'directory' && folder.entries.map(({ name, kind }) => ({ name, kind }))).toEqual(
        [{ name: 'package.json', kind: 'other' }],
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      await host.killRun(writer.runTag);
      const { stdout, outcome } = await watch.finish();
      expect({ stdout, outcome }).toEqual({ stdout: 'writing\n', outcome: { kind: 'cancelled' } });
    });
  });
}
