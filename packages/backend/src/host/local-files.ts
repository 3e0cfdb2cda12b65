import { randomBytes } from 'node:crypto';
import {
  appendFile,
  chmod,
  lstat,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rm,
  stat,
  unlink,
} from 'node:fs/promises';
import { constants, type Dirent, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import { readWithinLocally } from './local-read-within.ts';
import type {
  CreateOptions,
  DirectoryEntry,
  DirectoryEntryStat,
  FileErrorCode,
  FileStat,
  HostFiles,
} from './host.ts';

/** HostFiles over node:fs on this machine. Every failure is a CatalystError with the path in its details. */

function errnoOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

// ENOTDIR: a component of the path is a regular file, so the file asked for cannot exist either.
function fileErrorCodeOf(errno: string | undefined): FileErrorCode {
  if (errno === 'ENOENT' || errno === 'ENOTDIR') return 'FILE_NOT_FOUND';
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') return 'PERMISSION_DENIED';
  return 'FILE_ERROR';
}

function toFileError(error: unknown, operation: string, path: string): CatalystError {
  const errno = errnoOf(error);
  const reason = error instanceof Error ? error.message : String(error);
  return new CatalystError(fileErrorCodeOf(errno), `cannot ${operation} ${path}: ${reason}`, {
    cause: error,
    details: { path, operation, ...(errno === undefined ? {} : { errno }) },
  });
}

async function mapErrors<T>(operation: string, path: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof CatalystError) throw error;
    throw toFileError(error, operation, path);
  }
}

function kindOf(entry: Stats | Dirent): FileStat['kind'] {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return 'other';
}

/** The mode of the file being replaced, so an atomic overwrite does not loosen a 0600 file to the umask. */
async function modeToKeep(path: string): Promise<number> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch {
    return 0o666;
  }
}

async function writeFileAtomic(path: string, data: Buffer | string, options?: CreateOptions): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.catalyst-${randomBytes(6).toString('hex')}.tmp`);
  const mode = options?.mode ?? (await modeToKeep(path));
  try {
    const file = await open(temporary, 'wx', mode);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw toFileError(error, 'write', path);
  }
}

/**
 * Opens a regular file for reading, never anything else (issue 39: Catalyst's own files sit beside a build's
 * project): lstat first, so that a FIFO is not opened at all (an open for reading would release a writer waiting on
 * it); then O_NONBLOCK, so that a FIFO swapped in meanwhile does not hold one of libuv's threads until a writer
 * comes, O_NOFOLLOW for a symlink swapped in, and fstat on what was opened.
 */
async function openRegularFile(path: string): Promise<FileHandle> {
  const before = await lstat(path);
  if (!before.isFile()) throw notRegularFile(path, before.isSymbolicLink() ? 'symlink' : kindName(before));
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  const info = await file.stat().catch(async (error: unknown) => {
    await file.close();
    throw error;
  });
  if (info.isFile()) return file;
  await file.close();
  throw notRegularFile(path, kindName(info));
}

function kindName(info: Stats): string {
  return info.isFIFO() ? 'fifo' : kindOf(info);
}

/** O_NOFOLLOW on a symlink fails with ELOOP: said as what it is. */
async function openForRead(path: string): Promise<FileHandle> {
  try {
    return await openRegularFile(path);
  } catch (error) {
    if (errnoOf(error) === 'ELOOP') throw notRegularFile(path, 'symlink');
    throw error;
  }
}

function notRegularFile(path: string, kind: string): CatalystError {
  return new CatalystError('FILE_ERROR', `cannot read ${path}: not a regular file (${kind})`, {
    details: { path, operation: 'read', kind },
  });
}

async function readWhole(path: string): Promise<Buffer> {
  const file = await openForRead(path);
  try {
    return await file.readFile();
  } finally {
    await file.close();
  }
}

async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const file = await openForRead(path);
  try {
    const buffer = Buffer.alloc(length);
    let filled = 0;
    // read(2) may return less than asked before the end of the file; zero bytes is the end.
    while (filled < length) {
      const { bytesRead } = await file.read(buffer, filled, length - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  } finally {
    await file.close();
  }
}

/** rm -rf; where that is refused (a directory without u+w), the directories are made writable and it goes again. */
async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    const errno = errnoOf(error);
    if (errno !== 'EACCES' && errno !== 'EPERM') throw error;
    await makeDirectoriesWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

/** u+rwx on every directory of the tree (never following a symlink), parents before their entries. */
async function makeDirectoriesWritable(path: string): Promise<void> {
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  if ((info.mode & 0o700) !== 0o700) await chmod(path, (info.mode & 0o7777) | 0o700);
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isDirectory()) await makeDirectoriesWritable(join(path, entry.name));
  }
}

/**
 * rename(2) that refuses an existing `to`, as the SSH adapter's SFTP rename does (OpenSSH's sftp-server links a file
 * to its new name, and checks a directory's target first), where plain rename(2) would replace a file or an empty
 * directory. Node has no renameat2(RENAME_NOREPLACE); like sftp-server's check, this one races a `to` created
 * between the lstat and the rename, which the one caller (the idea store's trash, a fresh random name) never does.
 */
async function renameWithoutReplacing(from: string, to: string): Promise<void> {
  await lstat(from);
  const existing = await lstat(to).catch((error: unknown) => {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) {
    throw Object.assign(new Error(`EEXIST: ${to} already exists`), { code: 'EEXIST' });
  }
  await rename(from, to);
}

export function createLocalFiles(): HostFiles {
  return {
    readFile: (path) => mapErrors('read', path, () => readWhole(path)),
    readRange: (path, offset, length) => mapErrors('read', path, () => readRange(path, offset, length)),
    writeFileAtomic,
    appendFile: (path, data, options) =>
      mapErrors('append to', path, () => appendFile(path, data, { ...options })),
    mkdirp: (path, options) =>
      mapErrors('create directory', path, async () => {
        await mkdir(path, { recursive: true, ...options });
      }),
    stat: (path) =>
      mapErrors('stat', path, async () => {
        const info = await stat(path);
        return { kind: kindOf(info), size: info.size, modifiedMs: info.mtimeMs };
      }),
    list: (path) =>
      mapErrors('list', path, async () => {
        const entries = await readdir(path, { withFileTypes: true });
        return entries.map((entry): DirectoryEntry => ({ name: entry.name, kind: kindOf(entry) }));
      }),
    listWithStats: (path) =>
      mapErrors('list', path, async () => {
        const names = await readdir(path);
        const entries = await Promise.all(
          names.map(async (name): Promise<DirectoryEntryStat | undefined> => {
            // Gone between the readdir and the lstat: left out, as a listing a moment later would.
            const info = await lstat(join(path, name)).catch(() => undefined);
            return info && { name, kind: kindOf(info), size: info.size, modifiedMs: info.mtimeMs };
          }),
        );
        return entries.filter((entry) => entry !== undefined);
      }),
    realpath: (path) => mapErrors('resolve', path, () => realpath(path)),
    readWithin: readWithinLocally,
    remove: (path) => mapErrors('remove', path, () => removeTree(path)),
    rename: (from, to) => mapErrors('rename', from, () => renameWithoutReplacing(from, to)),
  };
}
