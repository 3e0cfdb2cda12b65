import { CatalystError } from './catalyst-error.ts';
import { createShellCall, type ShellCall } from './shell-quote.ts';
import { VM_SCRIPTS } from './vm-scripts.generated.ts';

/**
 * Reading a project's file or folder in one step on the host (issue 25, findings 2 and 10): the POSIX sh script
 * packages/backend/vm/read-within.sh resolves the path, checks it stays inside the root, and reads what it checked,
 * so nothing on the VM can swap a folder for a symlink between a check and a read made in separate round trips.
 * Anything but a regular file or a directory (a FIFO, a socket, a device) is reported and never opened. How, and
 * what it prints, is written in the script; this module renders its arguments and reads its output.
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

/**
 * The script and its arguments: `<marker> <root> <path> <most bytes>`. `marker`: random per call (letters and
 * digits), the start of the script's own output.
 */
export function renderReadWithinScript(request: ReadWithinRequest, marker: string): ShellCall {
  if (!Number.isSafeInteger(request.maxBytes) || request.maxBytes < 0) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `maxBytes must be a whole number, not ${String(request.maxBytes)}`,
    );
  }
  if (!/^[A-Za-z0-9]{8,64}$/.test(marker)) throw new CatalystError('INVALID_ARGUMENT', 'a bad output marker');
  return createShellCall(VM_SCRIPTS['read-within'], 'catalyst-read', [
    marker,
    request.root,
    request.path,
    String(request.maxBytes),
  ]);
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
