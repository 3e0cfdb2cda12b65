/**
 * What a checkpoint changed (issue 13), read from git's machine formats: `git diff --numstat -z -M` (lines added
 * and deleted per file, `-` for a binary file) and `git diff --name-status -z -M` (how each file changed), which
 * list the same files in the same order. With `-z` a path is written as it is (no quoting, a newline is a newline),
 * and a rename is two paths: numstat's third field is empty and the two paths follow, each ended by NUL; name-status
 * writes `R<score>` and then the two paths.
 */

export type FileChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed';

export interface FileChange {
  path: string;
  /** The path before a rename or copy. */
  from?: string;
  status: FileChangeStatus;
  insertions: number;
  deletions: number;
  isBinary: boolean;
}

export interface DiffStat {
  files: FileChange[];
  insertions: number;
  deletions: number;
}

const STATUSES: Readonly<Record<string, FileChangeStatus>> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

interface Counts {
  insertions: number;
  deletions: number;
  isBinary: boolean;
  path: string;
}

/** Reads both outputs; throws on anything that is not what git prints, rather than guessing. */
export function parseDiffStat(numstat: string, nameStatus: string): DiffStat {
  const counts = parseNumstat(numstat);
  const kinds = parseNameStatus(nameStatus);
  if (counts.length !== kinds.length) {
    throw new Error(
      `git listed ${String(counts.length)} files with counts but ${String(kinds.length)} with a status`,
    );
  }
  const files = kinds.map((kind, index): FileChange => {
    const count = counts[index];
    if (count?.path !== kind.path)
      throw new Error(`git's two listings differ at ${JSON.stringify(kind.path)}`);
    const { path, ...rest } = count;
    return { path, ...(kind.from === undefined ? {} : { from: kind.from }), status: kind.status, ...rest };
  });
  return {
    files,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
  };
}

/**
 * `git diff-tree -r -z -M --raw --numstat`: every file's raw record (`:<modes> <ids> <status>`, then its path, or
 * two for a rename or copy), then every file's numstat, in the same order. A raw record's first field starts with
 * `:`, a numstat's with a digit or `-`, and paths are read by position, so a path starting with `:` is no header.
 */
export function parseRawNumstat(output: string): DiffStat {
  const fields = splitNul(output);
  const nameStatus: string[] = [];
  let index = 0;
  let offset = 0;
  while (index < fields.length && (fields[index] ?? '').startsWith(':')) {
    const code = (fields[index] ?? '').split(' ')[4] ?? '';
    const paths = code.startsWith('R') || code.startsWith('C') ? 2 : 1;
    const record = fields.slice(index, index + 1 + paths);
    nameStatus.push(code, ...record.slice(1));
    offset += record.reduce((sum, field) => sum + field.length + 1, 0);
    index += 1 + paths;
  }
  const names = nameStatus.length === 0 ? '' : `${nameStatus.join('\0')}\0`;
  return parseDiffStat(output.slice(offset), names);
}

function parseNumstat(output: string): Counts[] {
  const fields = splitNul(output);
  const counts: Counts[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const match = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(fields[index] ?? '');
    if (match === null) throw new Error(`not a numstat line: ${JSON.stringify(fields[index])}`);
    const [, added = '', deleted = '', inline = ''] = match;
    let path = inline;
    // A rename: the two paths follow as fields of their own; the counts belong to the new one.
    if (inline === '') {
      path = fields[index + 2] ?? '';
      index += 2;
    }
    const isBinary = added === '-';
    counts.push({
      path,
      isBinary,
      insertions: isBinary ? 0 : Number(added),
      deletions: isBinary ? 0 : Number(deleted),
    });
  }
  return counts;
}

function parseNameStatus(output: string): { path: string; from?: string; status: FileChangeStatus }[] {
  const fields = splitNul(output);
  const kinds: { path: string; from?: string; status: FileChangeStatus }[] = [];
  let index = 0;
  while (index < fields.length) {
    const code = fields[index] ?? '';
    const status = STATUSES[code.charAt(0)];
    if (status === undefined) throw new Error(`not a name-status code: ${JSON.stringify(code)}`);
    if (status === 'renamed' || status === 'copied') {
      kinds.push({ from: fields[index + 1] ?? '', path: fields[index + 2] ?? '', status });
      index += 3;
    } else {
      kinds.push({ path: fields[index + 1] ?? '', status });
      index += 2;
    }
  }
  return kinds;
}

/** The NUL-ended fields of a `-z` output (the last NUL ends the last field; nothing follows it). */
function splitNul(output: string): string[] {
  if (output === '') return [];
  const fields = output.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}
