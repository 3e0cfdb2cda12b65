import { describe, expect, it } from 'vitest';
import { checkpointMessage, readCheckpointChange, readScriptOutput } from './checkpoint-git.ts';

const COMMIT = 'a'.repeat(40);
const PARENT = 'b'.repeat(40);

const RAW =
  ':100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222';

/** What `git diff-tree --raw --numstat -z` prints: each raw record (`[code, ...paths]`), then the numstat. */
function stat(raw: string[][], numstat: string): Buffer {
  const records = raw.map(([code, ...paths]) => `${RAW} ${String(code)}\0${paths.join('\0')}\0`).join('');
  return Buffer.from(`@@COMMIT=${COMMIT}\n@@STAT\n${records}${numstat}`, 'utf8');
}

describe('readScriptOutput', () => {
  it('reads the key lines before the data and keeps the data as bytes, newlines and @@ lines included', () => {
    const output = readScriptOutput(Buffer.from('noise\n@@SIZE=12\n@@DATA\n@@FAIL=x\n\0bytes', 'utf8'));
    expect(output.lines).toEqual(new Map([['SIZE', '12']]));
    expect(output.hasData).toBe(true);
    expect(output.data.toString('utf8')).toBe('@@FAIL=x\n\0bytes');
  });

  it('has no data without a marker, and keys without a value', () => {
    const output = readScriptOutput(Buffer.from('@@SAME\n', 'utf8'));
    expect(output).toEqual({ lines: new Map([['SAME', '']]), data: Buffer.alloc(0), hasData: false });
  });
});

describe('readCheckpointChange', () => {
  const about = { commit: COMMIT, parent: PARENT, kind: 'build' as const };

  it('pairs the raw records with the numstat and counts every file', () => {
    const data = readScriptOutput(
      stat(
        [
          ['A', 'a.txt'],
          ['M', 'logo.png'],
        ],
        '2\t0\ta.txt\0-\t-\tlogo.png\0',
      ),
    ).data;
    expect(readCheckpointChange(data, about)).toEqual({
      ...about,
      filesChanged: 2,
      insertions: 2,
      deletions: 0,
      files: [
        { path: 'a.txt', status: 'added', insertions: 2, deletions: 0 },
        { path: 'logo.png', status: 'modified', insertions: 0, deletions: 0, binary: true },
      ],
    });
  });

  it('reads an empty change (the first checkpoint of an empty folder)', () => {
    const data = readScriptOutput(stat([], '')).data;
    expect(readCheckpointChange(data, about)).toMatchObject({ filesChanged: 0, files: [] });
  });

  it('takes renames and names with newlines, tabs and a leading colon as they are', () => {
    const data = readScriptOutput(
      stat(
        [
          ['R090', 'old\nname', 'new\tname'],
          ['A', ':100644 x'],
        ],
        '1\t1\t\0old\nname\0new\tname\0' + '1\t0\t:100644 x\0',
      ),
    ).data;
    expect(readCheckpointChange(data, about).files).toEqual([
      { path: 'new\tname', from: 'old\nname', status: 'renamed', insertions: 1, deletions: 1 },
      { path: ':100644 x', status: 'added', insertions: 1, deletions: 0 },
    ]);
  });

  it('names at most 500 files but counts them all', () => {
    const names = Array.from({ length: 600 }, (_, index) => `f${String(index)}`);
    const numstat = names.map((name) => `1\t0\t${name}\0`).join('');
    const raw = names.map((name) => ['A', name]);
    const change = readCheckpointChange(readScriptOutput(stat(raw, numstat)).data, about);
    expect(change.filesChanged).toBe(600);
    expect(change.insertions).toBe(600);
    expect(change.files).toHaveLength(500);
  });

  it('throws on output git does not print', () => {
    expect(() => readCheckpointChange(Buffer.from('1\t0\ta\0', 'utf8'), about)).toThrow();
    expect(() => readCheckpointChange(Buffer.from('junk', 'utf8'), about)).toThrow();
  });
});

describe('checkpointMessage', () => {
  it('names what, the first non-empty line of the message, and the run', () => {
    expect(checkpointMessage('Build', '\n  Make a game  \nwith details', 'run-x')).toBe(
      'Build: Make a game\n\nCatalyst-Run: run-x',
    );
    expect(checkpointMessage('Before restore', undefined)).toBe('Before restore');
  });

  it('cuts a long first line by code points, never inside an emoji', () => {
    expect(checkpointMessage('Build', 'x'.repeat(300))).toBe(`Build: ${'x'.repeat(99)}…`);
    const subject = checkpointMessage('Build', `${'x'.repeat(98)}🎉🎉 and more`);
    expect(subject).toBe(`Build: ${'x'.repeat(98)}🎉…`);
    expect(/\p{Surrogate}/u.test(subject)).toBe(false);
  });
});
