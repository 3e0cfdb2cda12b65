import { readFile, stat, utimes } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.ts';

// The command runs a bundle of its source (bin/catalyst.mjs): made again on the first run after a source changed, or
// a person editing the command would run what it was before.
const dist = (name: string) => fileURLToPath(new URL(`../dist/${name}`, import.meta.url));
const source = fileURLToPath(new URL('../src/paint.ts', import.meta.url));

describe('the command’s bundle', () => {
  it('is made again on the first run after a source file changed', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    const stamp = await readFile(dist('catalyst.stamp'), 'utf8');
    const madeAt = (await stat(dist('catalyst.mjs'))).mtimeMs;

    // (Whether a run without a change makes it again is not asserted: on a fresh clone another test file's first run
    // may be making it at the same moment.)
    // An edit, as far as the stamp can tell: the file's time moves (its content is left as it is).
    const { atime, mtime } = await stat(source);
    try {
      await utimes(source, atime, new Date(mtime.getTime() + 60_000));
      const run = await runCli(['--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Usage:');
      expect(await readFile(dist('catalyst.stamp'), 'utf8')).not.toBe(stamp);
      expect((await stat(dist('catalyst.mjs'))).mtimeMs).toBeGreaterThan(madeAt);
    } finally {
      await utimes(source, atime, mtime);
    }
  });
});
