import { describe, expect, it } from 'vitest';
import { parseDiffStat } from './git-diff-stat.ts';

// The outputs below are what git 2.x prints for `git diff --numstat -z -M` and `--name-status -z -M` (captured
// from a real repository): a binary file deleted, a file renamed and edited, and a hostile name taken as it is.

describe('parseDiffStat', () => {
  it('pairs counts with statuses: binary files, renames (the new path, the old one as from), odd names', () => {
    const numstat = '-\t-\tbin.dat\x001\t0\t\x00one.txt\x00moved.txt\x002\t0\twe ird"name\n$(x)\x00';
    const nameStatus = 'D\x00bin.dat\x00R066\x00one.txt\x00moved.txt\x00A\x00we ird"name\n$(x)\x00';
    expect(parseDiffStat(numstat, nameStatus)).toEqual({
      files: [
        { path: 'bin.dat', status: 'deleted', insertions: 0, deletions: 0, isBinary: true },
        {
          path: 'moved.txt',
          from: 'one.txt',
          status: 'renamed',
          insertions: 1,
          deletions: 0,
          isBinary: false,
        },
        { path: 'we ird"name\n$(x)', status: 'added', insertions: 2, deletions: 0, isBinary: false },
      ],
      insertions: 3,
      deletions: 0,
    });
  });

  it('reads an empty diff as no files', () => {
    expect(parseDiffStat('', '')).toEqual({ files: [], insertions: 0, deletions: 0 });
  });

  it('refuses what git does not print, rather than guessing', () => {
    expect(() => parseDiffStat('1\t2\ta\x00', '')).toThrow(/1 files with counts but 0/);
    expect(() => parseDiffStat('x\ty\ta\x00', 'M\x00a\x00')).toThrow(/not a numstat line/);
    expect(() => parseDiffStat('1\t2\ta\x00', 'Q\x00a\x00')).toThrow(/not a name-status code/);
    expect(() => parseDiffStat('1\t2\ta\x00', 'M\x00b\x00')).toThrow(/differ/);
  });
});
