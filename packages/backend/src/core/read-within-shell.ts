import { CatalystError } from './catalyst-error.ts';
import { quoteShellArg } from './shell-quote.ts';

/**
 * Reading a project's file or folder in one step on the host (issue 25, findings 2 and 10): one POSIX sh script
 * resolves the path, checks it stays inside the root, and reads what it checked, so nothing on the VM can swap a
 * folder for a symlink between a check and a read made in separate round trips. Anything but a regular file or a
 * directory (a FIFO, a socket, a device) is reported and never opened: an open() of a FIFO waits for a writer.
 *
 * How: `cd -P` into a directory pins it (the shell's cwd is that directory, whatever its path becomes), and
 * `pwd -P` then says where it really is; the last name is tested with lstat (`[ -h ]`, `[ -f ]`, `[ -d ]`) and a
 * file is read by GNU dd with O_NOFOLLOW|O_NONBLOCK, so a name swapped after the test is neither followed (no
 * symlink out) nor waited on (a FIFO opens at once, and its inode then differs: exit 4). Only root can make a
 * device node, so in a project's directory the swap has nothing else to offer. A listing is GNU find's, which
 * lstats and never opens an entry. Plain sh for dash and bash: no `local`, no arrays, no `$'…'`.
 *
 * Output on stdout after `marker` (a login shell's rc files may print before the script runs, ssh-field-notes.md
 * §9), fields ending in NUL: `err` and a reason (missing, denied, root, outside, changed), or `ok`,
 * a kind and the real path inside the root, then per kind: `file` its `inode/size/mtime` and its first bytes;
 * `dir` one `type/size/mtime/name` field per entry; `other` its type (`stat -c %F`).
 */

export interface ReadWithinRequest {
  /** Absolute. The path may not lead outside it, and its own last name may not be a symlink. */
  root: string;
  /** Relative to `root`, already checked by core/project-path.ts; `''` is the root itself. */
  path: string;
  /** A file's first bytes, at most this many. */
  maxBytes: number;
}

export interface ReadWithinEntry {
  name: string;
  /** From lstat: a symlink is `other`. */
  kind: 'file' | 'directory' | 'other';
  size: number;
  modifiedMs: number;
}

export type ReadWithinResult =
  | { kind: 'file'; inside: string; size: number; modifiedMs: number; data: Buffer }
  | { kind: 'directory'; inside: string; entries: ReadWithinEntry[] }
  /** A FIFO, a socket, a device: not opened. `what` names it (`fifo`, `socket`, …). */
  | { kind: 'other'; inside: string; what: string }
  /** `root`: the root is a symlink or no directory; `outside`: the path leads out; `changed`: it moved meanwhile. */
  | { kind: 'refused'; reason: 'root' | 'outside' | 'changed' };

const READ_WITHIN_BODY = `
cr_say() { printf '%s\\0' "$@"; }
cr_done() { printf '%s\\0%s\\0' "$cr_mark" "$1"; exit 0; }
cr_end() { cr_say "$@"; cr_done 0; }
cr_here() { cr_h=$(pwd -P && echo /) && cr_h=\${cr_h%?/}; }
cr_name=\${cr_root##*/}
cd -P -- "\${cr_root%/*}/" 2>/dev/null || cr_end err missing
cr_here
cr_parent=\${cr_h%/}
if ! cd -P -- "./$cr_name" 2>/dev/null; then
  [ -d "./$cr_name" ] && cr_end err denied
  [ -e "./$cr_name" ] && cr_end err root
  cr_end err missing
fi
cr_here
cr_top=$cr_h
[ "$cr_top" = "$cr_parent/$cr_name" ] || cr_end err root
cr_real=$cr_top
if [ -n "$cr_rel" ]; then
  if ! cr_real=$(readlink -e -- "./$cr_rel" && echo /); then
    [ -e "./$cr_rel" ] && cr_end err changed
    cr_end err missing
  fi
  cr_real=\${cr_real%?/}
fi
case $cr_real in
  "$cr_top") cr_in= ;;
  "$cr_top"/*) cr_in=\${cr_real#"$cr_top"/} ;;
  *) cr_end err outside ;;
esac
cr_base=.
if [ -n "$cr_in" ]; then
  cd -P -- "\${cr_real%/*}/" 2>/dev/null || cr_end err changed
  cr_here
  [ "$cr_h" = "\${cr_real%/*}" ] || cr_end err changed
  cr_base=./\${cr_real##*/}
fi
if [ -h "$cr_base" ]; then
  cr_end err changed
elif [ -d "$cr_base" ]; then
  cd -P -- "$cr_base" 2>/dev/null || cr_end err denied
  cr_here
  [ "$cr_h" = "$cr_real" ] || cr_end err changed
  [ -r . ] && [ -x . ] || cr_end err denied
  cr_say ok dir "$cr_in"
  find . -mindepth 1 -maxdepth 1 -printf '%y/%s/%T@/%P\\0'
  cr_done $?
elif [ -f "$cr_base" ]; then
  [ -r "$cr_base" ] || cr_end err denied
  cr_st=$(stat -c '%i/%s/%Y' -- "$cr_base") || cr_end err changed
  cr_say ok file "$cr_in" "$cr_st"
  dd if="$cr_base" iflag=nofollow,nonblock,count_bytes bs=65536 count="$cr_max" status=none || cr_done dd
  [ "$(stat -c %i -- "$cr_base" 2>/dev/null)" = "\${cr_st%%/*}" ] || cr_done changed
  cr_done 0
else
  [ -e "$cr_base" ] || cr_end err changed
  cr_end ok other "$cr_in" "$(stat -c %F -- "$cr_base" 2>/dev/null)"
fi
`;
// cr_here: pwd -P, keeping a name's trailing newline (a `$(…)` drops it; the `/` after it is cut off again).
// The root: its parent resolved, then its own name entered; if that name is a symlink, pwd -P is elsewhere.
// readlink -e: every part must exist; a dangling symlink is missing (there now: it changed meanwhile). The real path is then entered as a
// directory plus a last name, each checked again where it is, so a change since readlink is `changed`.
// dd: count_bytes makes count a byte count; nonblock is no-op on a regular file; exit 3 is a failed read.

/** `marker`: random per call (letters and digits), the start of the script's own output. */
export function renderReadWithinScript(request: ReadWithinRequest, marker: string): string {
  if (!Number.isSafeInteger(request.maxBytes) || request.maxBytes < 0) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `maxBytes must be a whole number, not ${String(request.maxBytes)}`,
    );
  }
  if (!/^[A-Za-z0-9]{8,64}$/.test(marker)) throw new CatalystError('INVALID_ARGUMENT', 'a bad output marker');
  return [
    `cr_mark=${marker}`,
    `printf '%s\\0' "$cr_mark"`,
    `cr_root=${quoteShellArg(request.root)}`,
    `cr_rel=${quoteShellArg(request.path)}`,
    `cr_max=${String(request.maxBytes)}`,
    READ_WITHIN_BODY,
  ].join('\n');
}

/**
 * The script's stdout → what it found. It ends with the marker and a word (0, `changed`, or what failed), so no
 * exit status is needed: ssh2 drops an exit status that arrives with the channel's last bytes, before anyone
 * listens. Throws FILE_NOT_FOUND or PERMISSION_DENIED naming the path, FILE_ERROR for any other failure.
 */
export function parseReadWithinOutput(
  output: Buffer,
  end: { code: number | null; stderr: string; marker: string },
  request: ReadWithinRequest,
): ReadWithinResult {
  const where = request.path === '' ? request.root : `${request.root}/${request.path}`;
  const marker = Buffer.from(`${end.marker}\0`);
  const start = output.indexOf(marker);
  const trailer = output.lastIndexOf(marker);
  if (start === -1 || trailer <= start || output.at(-1) !== 0) throw unreadable(where, end);
  const outcome = output.toString('utf8', trailer + marker.length, output.length - 1);
  if (outcome === 'changed') return { kind: 'refused', reason: 'changed' };
  if (outcome !== '0') throw unreadable(where, { ...end, stderr: `${outcome} failed: ${end.stderr}` });
  const stdout = output.subarray(start + marker.length, trailer);
  const fields = splitFields(stdout, 4);
  const [status, kind, inside = '', extra = ''] = fields.values;
  if (status === 'err') return refusal(kind, where);
  if (status !== 'ok') throw unreadable(where, end);
  if (kind === 'other') return { kind: 'other', inside, what: extra };
  if (kind === 'dir')
    return { kind: 'directory', inside, entries: parseEntries(stdout.subarray(fields.endOf[2])) };
  const [, size, mtime] = /^\d+\/(\d+)\/(\d+)$/.exec(extra) ?? [];
  if (kind !== 'file' || size === undefined || mtime === undefined) throw unreadable(where, end);
  const data = stdout.subarray(fields.endOf[3]);
  return { kind: 'file', inside, size: Number(size), modifiedMs: Number(mtime) * 1000, data };
}

function refusal(reason: string | undefined, where: string): ReadWithinResult {
  if (reason === 'root' || reason === 'outside' || reason === 'changed') return { kind: 'refused', reason };
  if (reason === 'denied') return fail('PERMISSION_DENIED', `${where}: permission denied`, where);
  return fail('FILE_NOT_FOUND', `${where}: no such file or directory`, where);
}

function fail(code: 'FILE_NOT_FOUND' | 'PERMISSION_DENIED', message: string, path: string): never {
  throw new CatalystError(code, message, { details: { path, action: 'read' } });
}

function unreadable(where: string, end: { code: number | null; stderr: string }): CatalystError {
  return new CatalystError(
    'FILE_ERROR',
    `reading ${where} on the host failed (exit code ${String(end.code)}): ${end.stderr.trim().slice(-500)}`,
    { details: { path: where, action: 'read', exitCode: end.code } },
  );
}

/** The first `count` NUL-ended fields as text, and where each ends (the byte after its NUL). */
function splitFields(bytes: Buffer, count: number): { values: string[]; endOf: number[] } {
  const values: string[] = [];
  const endOf: number[] = [];
  let start = 0;
  while (values.length < count) {
    const nul = bytes.indexOf(0, start);
    if (nul === -1) break;
    values.push(bytes.toString('utf8', start, nul));
    endOf.push(nul + 1);
    start = nul + 1;
  }
  return { values, endOf };
}

const KIND_BY_FIND_TYPE: Readonly<Record<string, ReadWithinEntry['kind']>> = { f: 'file', d: 'directory' };

function parseEntries(bytes: Buffer): ReadWithinEntry[] {
  const entries: ReadWithinEntry[] = [];
  for (const record of bytes.toString('utf8').split('\0')) {
    // A name holds no `/` and no NUL, so the fourth field is the whole name.
    const [, type, size, mtime, name] = /^(.)\/(\d+)\/([\d.]+)\/(.+)$/s.exec(record) ?? [];
    if (type === undefined || name === undefined) continue;
    entries.push({
      name,
      kind: KIND_BY_FIND_TYPE[type] ?? 'other',
      size: Number(size),
      modifiedMs: Math.round(Number(mtime) * 1000),
    });
  }
  return entries;
}
