import type { DiffRow } from '../transcript/diff-rows.ts';

/**
 * A checkpoint's diff (git's unified format, `git diff -M`) split per file, for the diff view: each file's header
 * read for its path and how it changed, its hunks as rows. A binary file has no rows ("Binary files … differ").
 * Paths git had to quote (a tab, a newline, a quote or a backslash in the name) are unquoted.
 */

export type FileDiffStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';

/**
 * A row's line numbers in the file before (`old`) and after (`new`) the change, as the hunk headers count them: a
 * context row has both, an added row `new`, a deleted row `old`, a hunk header or a "\ No newline" note neither.
 */
export interface DiffLineNumbers {
  readonly old: number | undefined;
  readonly new: number | undefined;
}

export interface FileDiff {
  /** The path after the change; for a deleted file, the path it had. */
  readonly path: string;
  /** The path before a rename or copy. */
  readonly from: string | undefined;
  readonly status: FileDiffStatus;
  readonly isBinary: boolean;
  readonly insertions: number;
  readonly deletions: number;
  readonly rows: readonly DiffRow[];
  /** Each row's line numbers (review comments, issue 30), index for index. */
  readonly lineNumbers: readonly DiffLineNumbers[];
}

export interface SplitDiff {
  readonly files: readonly FileDiff[];
  /** The server's line at the end of a diff it cut ("[… the diff is longer …]"). */
  readonly note: string | undefined;
}

interface FileDraft {
  gitLine: string;
  path: string | undefined;
  from: string | undefined;
  oldPath: string | undefined;
  status: FileDiffStatus;
  isBinary: boolean;
  insertions: number;
  deletions: number;
  rows: DiffRow[];
  lineNumbers: DiffLineNumbers[];
  /** The next old and new line numbers in the current hunk. */
  nextOld: number;
  nextNew: number;
  isInHunks: boolean;
}

/** The files of a unified diff, in its order. */
export function splitUnifiedDiff(diff: string): SplitDiff {
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  // A hunk's lines start with ' ', '+', '-' or '\', a header's with a word: a last line in brackets is the note.
  const note = lines[lines.length - 1]?.startsWith('[') === true ? lines.pop() : undefined;
  const files: FileDiff[] = [];
  let draft: FileDraft | undefined;
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      if (draft !== undefined) files.push(finishFile(draft));
      draft = startFile(line);
    } else if (draft !== undefined) {
      if (draft.isInHunks) readHunkLine(draft, line);
      else readHeaderLine(draft, line);
    }
  }
  if (draft !== undefined) files.push(finishFile(draft));
  return { files, note };
}

function startFile(gitLine: string): FileDraft {
  return {
    gitLine,
    path: undefined,
    from: undefined,
    oldPath: undefined,
    status: 'modified',
    isBinary: false,
    insertions: 0,
    deletions: 0,
    rows: [],
    lineNumbers: [],
    nextOld: 0,
    nextNew: 0,
    isInHunks: false,
  };
}

function readHeaderLine(draft: FileDraft, line: string): void {
  if (line.startsWith('@@')) {
    draft.isInHunks = true;
    startHunk(draft, line);
  } else if (line.startsWith('new file mode')) draft.status = 'added';
  else if (line.startsWith('deleted file mode')) draft.status = 'deleted';
  else if (line.startsWith('rename from ') || line.startsWith('copy from ')) {
    draft.status = line.startsWith('rename') ? 'renamed' : 'copied';
    draft.from = unquotePath(line.slice(line.indexOf(' from ') + 6));
  } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
    draft.path = unquotePath(line.slice(line.indexOf(' to ') + 4));
  } else if (line.startsWith('--- ')) draft.oldPath = readSidePath(line.slice(4));
  else if (line.startsWith('+++ ')) draft.path ??= readSidePath(line.slice(4));
  else if (line.startsWith('Binary files ') || line === 'GIT binary patch') draft.isBinary = true;
}

function readHunkLine(draft: FileDraft, line: string): void {
  if (line.startsWith('@@')) startHunk(draft, line);
  else if (line.startsWith('+')) {
    draft.insertions += 1;
    draft.rows.push({ kind: 'add', text: line.slice(1) });
    draft.lineNumbers.push({ old: undefined, new: draft.nextNew++ });
  } else if (line.startsWith('-')) {
    draft.deletions += 1;
    draft.rows.push({ kind: 'del', text: line.slice(1) });
    draft.lineNumbers.push({ old: draft.nextOld++, new: undefined });
  } else if (line.startsWith('\\')) {
    draft.rows.push({ kind: 'ctx', text: line });
    draft.lineNumbers.push(NO_NUMBERS);
  } else {
    draft.rows.push({ kind: 'ctx', text: line.slice(1) });
    draft.lineNumbers.push({ old: draft.nextOld++, new: draft.nextNew++ });
  }
}

const NO_NUMBERS: DiffLineNumbers = { old: undefined, new: undefined };

/** `@@ -12,3 +14,5 @@ …`: the hunk's first old and new line numbers. */
function startHunk(draft: FileDraft, line: string): void {
  const starts = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
  draft.nextOld = Number(starts?.[1] ?? 0);
  draft.nextNew = Number(starts?.[2] ?? 0);
  draft.rows.push({ kind: 'hunk', text: line });
  draft.lineNumbers.push(NO_NUMBERS);
}

function finishFile(draft: FileDraft): FileDiff {
  const path = draft.path ?? draft.oldPath ?? pathOfGitLine(draft.gitLine);
  return {
    path,
    from: draft.from,
    status: draft.status,
    isBinary: draft.isBinary,
    insertions: draft.insertions,
    deletions: draft.deletions,
    rows: draft.rows,
    lineNumbers: draft.lineNumbers,
  };
}

/** `a/x`, `b/x`, `"b/x\ty"` or `/dev/null` (undefined) of a `---` or `+++` line. */
function readSidePath(text: string): string | undefined {
  if (text === '/dev/null') return undefined;
  // Git ends an unquoted name holding a space with a tab, for patch(1).
  const path = text.startsWith('"') ? unquotePath(text) : text.replace(/\t$/, '');
  return stripSidePrefix(path);
}

function stripSidePrefix(path: string): string {
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

/**
 * The path on a `diff --git a/x b/x` line, for a file whose header names it nowhere else (a new empty file, a
 * mode change, a binary file): both halves are the same path, so the line's length tells where they part.
 */
function pathOfGitLine(line: string): string {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const end = endOfQuoted(rest);
    const second = rest.slice(end + 1).trimStart();
    return stripSidePrefix(unquotePath(second.startsWith('"') ? second : rest.slice(0, end)));
  }
  const length = (rest.length - 1) / 2;
  return stripSidePrefix(Number.isInteger(length) ? rest.slice(0, length) : rest);
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A path as git prints it: as it is, or C-quoted with escapes and octal bytes (UTF-8). */
export function unquotePath(text: string): string {
  if (!text.startsWith('"')) return text;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  // Plain runs, or one escape; the closing quote matches neither and ends the loop.
  const token = /([^"\\]+)|\\([0-7]{3}|[\s\S])/y;
  token.lastIndex = 1;
  for (let match = token.exec(text); match !== null; match = token.exec(text)) {
    const [, plain, escape = ''] = match;
    if (plain !== undefined) bytes.push(...encoder.encode(plain));
    else if (/^[0-7]{3}$/.test(escape)) bytes.push(parseInt(escape, 8));
    else bytes.push(ESCAPES[escape] ?? escape.charCodeAt(0));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The index of the quote closing the quoted text that starts at 0. */
function endOfQuoted(text: string): number {
  for (let at = 1; at < text.length; at += 1) {
    if (text[at] === '\\') at += 1;
    else if (text[at] === '"') return at;
  }
  return text.length;
}
