import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import type { DirectoryEntry, FileErrorCode, FileStat, HostFiles } from './host.ts';

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

async function writeFileAtomic(path: string, data: Buffer | string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.catalyst-${randomBytes(6).toString('hex')}.tmp`);
  const mode = await modeToKeep(path);
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

export function createLocalFiles(): HostFiles {
  return {
    readFile: (path) => mapErrors('read', path, () => readFile(path)),
    writeFileAtomic,
    appendFile: (path, data) => mapErrors('append to', path, () => appendFile(path, data)),
    mkdirp: (path) =>
      mapErrors('create directory', path, async () => {
        await mkdir(path, { recursive: true });
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
    remove: (path) => mapErrors('remove', path, () => rm(path, { recursive: true, force: true })),
  };
}
