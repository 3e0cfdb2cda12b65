import { describe, expect, it } from 'vitest';
import { splitUnifiedDiff, unquotePath } from './unified-diff.ts';

// A checkpoint's diff as git prints it (`git -c core.quotepath=false diff --no-color -M`), split per file: added,
// renamed, deleted, binary, an empty new file with no hunk, a name git quotes (a tab) and one it ends with a tab (a
// space); and a diff the server cut, whose last line is its note.

const DIFF = [
  'diff --git "a/a\\tb.txt" "b/a\\tb.txt"',
  'new file mode 100644',
  'index 0000000..8cc35a3',
  '--- /dev/null',
  '+++ "b/a\\tb.txt"',
  '@@ -0,0 +1 @@',
  '+tab',
  'diff --git a/before.md b/after.md',
  'similarity index 100%',
  'rename from before.md',
  'rename to after.md',
  'diff --git a/café.txt b/café.txt',
  'new file mode 100644',
  'index 0000000..c600332',
  '--- /dev/null',
  '+++ b/café.txt',
  '@@ -0,0 +1 @@',
  '+é',
  'diff --git a/empty.txt b/empty.txt',
  'new file mode 100644',
  'index 0000000..e69de29',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 3367afd..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-old',
  'diff --git a/img.bin b/img.bin',
  'index bdc955b..8835708 100644',
  'Binary files a/img.bin and b/img.bin differ',
  'diff --git a/keep.txt b/keep.txt',
  'index 4cb29ea..047ece5 100644',
  '--- a/keep.txt',
  '+++ b/keep.txt',
  '@@ -1,3 +1,4 @@',
  ' one',
  '-two',
  '+2',
  ' three',
  '+four',
  '\\ No newline at end of file',
  'diff --git a/with space.txt b/with space.txt',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ b/with space.txt\t',
  '@@ -0,0 +1 @@',
  '+new',
  '',
].join('\n');

describe('splitUnifiedDiff', () => {
  it('names each file with how it changed and counts its lines', () => {
    const { files, note } = splitUnifiedDiff(DIFF);
    expect(note).toBeUndefined();
    expect(
      files.map(({ path, from, status, isBinary, insertions, deletions }) => ({
        path,
        from,
        status,
        isBinary,
        insertions,
        deletions,
      })),
    ).toEqual([
      { path: 'a\tb.txt', from: undefined, status: 'added', isBinary: false, insertions: 1, deletions: 0 },
      {
        path: 'after.md',
        from: 'before.md',
        status: 'renamed',
        isBinary: false,
        insertions: 0,
        deletions: 0,
      },
      { path: 'café.txt', from: undefined, status: 'added', isBinary: false, insertions: 1, deletions: 0 },
      { path: 'empty.txt', from: undefined, status: 'added', isBinary: false, insertions: 0, deletions: 0 },
      { path: 'gone.txt', from: undefined, status: 'deleted', isBinary: false, insertions: 0, deletions: 1 },
      { path: 'img.bin', from: undefined, status: 'modified', isBinary: true, insertions: 0, deletions: 0 },
      { path: 'keep.txt', from: undefined, status: 'modified', isBinary: false, insertions: 2, deletions: 1 },
      {
        path: 'with space.txt',
        from: undefined,
        status: 'added',
        isBinary: false,
        insertions: 1,
        deletions: 0,
      },
    ]);
  });

  it('makes rows of the hunks: the hunk header, then context, removed and added lines without their sign', () => {
    const keep = splitUnifiedDiff(DIFF).files.find((file) => file.path === 'keep.txt');
    expect(keep?.rows).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,4 @@' },
      { kind: 'ctx', text: 'one' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: '2' },
      { kind: 'ctx', text: 'three' },
      { kind: 'add', text: 'four' },
      { kind: 'ctx', text: '\\ No newline at end of file' },
    ]);
    expect(splitUnifiedDiff(DIFF).files.find((file) => file.path === 'img.bin')?.rows).toEqual([]);
  });

  it('numbers each row as the hunk headers count: old and new lines, neither for headers and notes', () => {
    const files = splitUnifiedDiff(DIFF).files;
    const keep = files.find((file) => file.path === 'keep.txt');
    expect(keep?.lineNumbers.map((numbers) => [numbers.old, numbers.new])).toEqual([
      [undefined, undefined],
      [1, 1],
      [2, undefined],
      [undefined, 2],
      [3, 3],
      [undefined, 4],
      [undefined, undefined],
    ]);
    const later = splitUnifiedDiff(
      [
        'diff --git a/x b/x',
        '--- a/x',
        '+++ b/x',
        '@@ -40,2 +41,2 @@ function f() {',
        ' a',
        '-b',
        '+c',
        '',
      ].join('\n'),
    ).files[0];
    expect(later?.lineNumbers.map((numbers) => [numbers.old, numbers.new])).toEqual([
      [undefined, undefined],
      [40, 41],
      [41, undefined],
      [undefined, 42],
    ]);
    expect(files.find((file) => file.path === 'gone.txt')?.lineNumbers.at(-1)).toEqual({
      old: 1,
      new: undefined,
    });
  });

  it('keeps a line that looks like a header inside a hunk as a line of the file', () => {
    const diff = [
      'diff --git a/notes.txt b/notes.txt',
      '--- a/notes.txt',
      '+++ b/notes.txt',
      '@@ -1 +1,2 @@',
      ' keep',
      '+++ b/not-a-header',
      '',
    ].join('\n');
    const [file] = splitUnifiedDiff(diff).files;
    expect(file?.path).toBe('notes.txt');
    expect(file?.rows.at(-1)).toEqual({ kind: 'add', text: '++ b/not-a-header' });
  });

  it('takes the last line of a diff the server cut as its note, not as a line of the last file', () => {
    const cut = `${DIFF}[… the diff is longer than 2097152 bytes; the rest is not shown]\n`;
    const { files, note } = splitUnifiedDiff(cut);
    expect(note).toBe('[… the diff is longer than 2097152 bytes; the rest is not shown]');
    expect(files.at(-1)?.rows.at(-1)).toEqual({ kind: 'add', text: 'new' });
  });

  it('has no files for an empty diff', () => {
    expect(splitUnifiedDiff('')).toEqual({ files: [], note: undefined });
  });
});

describe('unquotePath', () => {
  it('reads git’s C quoting: escapes and octal UTF-8 bytes', () => {
    expect(unquotePath('"a\\tb\\n\\"c\\"\\\\"')).toBe('a\tb\n"c"\\');
    expect(unquotePath('"caf\\303\\251 \\360\\237\\231\\202.txt"')).toBe('café 🙂.txt');
    expect(unquotePath('plain name')).toBe('plain name');
  });
});
