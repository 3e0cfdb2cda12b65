import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import type { ReadWithinEntry, ReadWithinRequest, ReadWithinResult } from '../core/read-within-shell.ts';

/**
 * HostFiles.readWithin on this machine (issue 25, finding 10), race-free where the SSH host's script is nearly so:
 * the directory that holds the target is opened (O_DIRECTORY|O_NOFOLLOW) and checked to be where its real path
 * says (/proc/self/fd), then the last name is opened through it (`/proc/self/fd/<dir>/<name>`, what openat(2)
 * would do) with O_NOFOLLOW|O_NONBLOCK: a name swapped meanwhile is neither followed (a symlink fails, ELOOP) nor
 * waited on (a FIFO opens at once), and fstat then tells what was opened. Linux only, as the run wrapper is.
 * Before any open, lstat refuses what is no regular file or directory: a FIFO, a socket, a device is never opened.
 */

const OPEN_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const OPEN_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export async function readWithinLocally(request: ReadWithinRequest): Promise<ReadWithinResult> {
  const { root } = request;
  const where = request.path === '' ? root : posix.join(root, request.path);
  return mapErrors(where, async () => {
    const parentReal = await realpath(posix.dirname(root));
    const top = await realpath(root);
    if (top !== posix.join(parentReal, posix.basename(root)) || !(await lstat(top)).isDirectory()) {
      return { kind: 'refused', reason: 'root' };
    }
    const real = await realpath(where);
    const inside = real === top ? '' : real.startsWith(`${top}/`) ? real.slice(top.length + 1) : undefined;
    if (inside === undefined) return { kind: 'refused', reason: 'outside' };
    const info = await lstat(real);
    if (info.isDirectory()) return listPinned(real, inside);
    if (!info.isFile()) return { kind: 'other', inside, what: describeType(info) };
    return readPinned(real, inside, request.maxBytes);
  });
}

/** The directory opened, then checked to be `real`: its entries are the pinned directory's, whatever moves. */
async function withPinnedDirectory<T>(
  real: string,
  use: (fdPath: string) => Promise<T>,
): Promise<T | { kind: 'refused'; reason: 'changed' }> {
  const directory = await open(real, OPEN_DIRECTORY);
  try {
    const fdPath = `/proc/self/fd/${String(directory.fd)}`;
    if ((await readlink(fdPath)) !== real) return { kind: 'refused', reason: 'changed' };
    return await use(fdPath);
  } finally {
    await directory.close();
  }
}

function listPinned(real: string, inside: string): Promise<ReadWithinResult> {
  return withPinnedDirectory(real, async (fdPath) => {
    const names = await readdir(fdPath);
    const entries = await Promise.all(
      names.map(async (name): Promise<ReadWithinEntry | undefined> => {
        // Gone between the readdir and the lstat: left out, as a listing a moment later would.
        const entry = await lstat(`${fdPath}/${name}`).catch(() => undefined);
        return entry && { name, kind: kindOf(entry), size: entry.size, modifiedMs: entry.mtimeMs };
      }),
    );
    return { kind: 'directory', inside, entries: entries.filter((entry) => entry !== undefined) };
  });
}

function readPinned(real: string, inside: string, maxBytes: number): Promise<ReadWithinResult> {
  return withPinnedDirectory(posix.dirname(real), async (fdPath) => {
    let file: FileHandle;
    try {
      file = await open(`${fdPath}/${posix.basename(real)}`, OPEN_FILE);
    } catch (error) {
      // A symlink swapped in after the lstat: O_NOFOLLOW refuses it.
      if (errnoOf(error) === 'ELOOP') return { kind: 'refused', reason: 'changed' };
      throw error;
    }
    try {
      const info = await file.stat();
      if (!info.isFile()) return { kind: 'other', inside, what: describeType(info) };
      const buffer = Buffer.alloc(Math.min(maxBytes, info.size + 1));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const data = buffer.subarray(0, filled);
      return { kind: 'file', inside, size: info.size, modifiedMs: info.mtimeMs, data };
    } finally {
      await file.close();
    }
  });
}

function kindOf(info: Stats): ReadWithinEntry['kind'] {
  if (info.isFile()) return 'file';
  return info.isDirectory() ? 'directory' : 'other';
}

/** As `stat -c %F` names it, which the SSH host reports. */
function describeType(info: Stats): string {
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice()) return 'character special file';
  if (info.isBlockDevice()) return 'block special file';
  return info.isSymbolicLink() ? 'symbolic link' : 'unknown';
}

function errnoOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

async function mapErrors(where: string, action: () => Promise<ReadWithinResult>): Promise<ReadWithinResult> {
  try {
    return await action();
  } catch (error) {
    const errno = errnoOf(error);
    const details = { path: where, action: 'read', ...(errno === undefined ? {} : { errno }) };
    const reason = error instanceof Error ? error.message : String(error);
    if (errno === 'ENOENT' || errno === 'ENOTDIR') {
      throw new CatalystError('FILE_NOT_FOUND', `${where}: no such file or directory`, {
        cause: error,
        details,
      });
    }
    if (errno === 'EACCES' || errno === 'EPERM') {
      throw new CatalystError('PERMISSION_DENIED', `${where}: permission denied`, { cause: error, details });
    }
    throw new CatalystError('FILE_ERROR', `cannot read ${where}: ${reason}`, { cause: error, details });
  }
}
