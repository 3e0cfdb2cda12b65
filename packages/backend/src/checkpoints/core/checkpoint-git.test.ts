import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHECKPOINT_GIT_SCRIPT,
  checkpointMessage,
  fileAtCommand,
  gitCommand,
  readCheckpointChange,
  readScriptOutput,
} from './checkpoint-git.ts';
import { renderRunWrapper } from '../../core/run-wrapper.ts';

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

describe('gitCommand', () => {
  const message = checkpointMessage(
    'Build',
    'Tell nobody: the launch is on 3 May "$HOME" \\ ✓\nmore',
    'idea-a-run-1',
  );

  /** The bytes a script reads from a line of its stdin: `{"octal":"101 102"}` is `AB`. */
  function bytesOf(line: string | undefined): string {
    const { octal } = z.strictObject({ octal: z.string() }).parse(JSON.parse(line ?? '{}'));
    return Buffer.from(octal.split(' ').map((digits) => parseInt(digits, 8))).toString('utf8');
  }

  it('keeps the path of a file read at a checkpoint off the command line too: it goes on stdin', () => {
    const command = fileAtCommand('0123456789abcdef0123456789abcdef01234567', 'secret plans/launch.md', 1024);
    expect(command.argv.slice(3)).toEqual([
      'catalyst-git',
      'file-at',
      '0123456789abcdef0123456789abcdef01234567',
      '1024',
    ]);
    expect(command.argv.join(' ')).not.toContain('launch');
    expect(command.input).toHaveLength(1);
    expect(bytesOf(command.input[0])).toBe('secret plans/launch.md');
  });

  it("keeps the person's words off every command line (ps shows them to every user): they go on stdin", () => {
    for (const action of ['checkpoint', 'restore'] as const) {
      const command = gitCommand(action, ['', '1'], message);
      const wrapper = renderRunWrapper({
        argv: command.argv,
        cwd: '/home/someone/catalyst/ideas/idea-a/project',
        leaseSeconds: 30,
        graceSeconds: 1,
        maxRuntimeSeconds: 60,
      });
      for (const shown of [...command.argv, wrapper.script, ...wrapper.args]) {
        expect(shown).not.toContain('launch');
        expect(shown).not.toContain('Tell nobody');
      }
      expect(command.argv.slice(3)).toEqual(['catalyst-git', action, '', '1']);
      // One line a run takes on its stdin (RunHandle.writeLine): a JSON object without a newline.
      expect(command.input).toHaveLength(1);
      expect(command.input[0]).toMatch(/^\{[^\n]*\}$/);
      expect(bytesOf(command.input[0])).toBe(message);
    }
  });

  it('leaves out NUL bytes, which git refuses in a message', () => {
    expect(checkpointMessage('Build', 'a\0b')).toBe('Build: ab');
  });

  it('gives a command without a message no input', () => {
    expect(gitCommand('diff', ['a', 'b', '9'])).toEqual({
      argv: ['/bin/sh', '-c', CHECKPOINT_GIT_SCRIPT, 'catalyst-git', 'diff', 'a', 'b', '9'],
      input: [],
    });
  });
});
