import type { SFTPWrapper, Stats } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import type { DirectoryEntry, DirectoryEntryStat, FileStat } from '../host.ts';
import { codeOf, describeError } from './ssh-errors.ts';

/**
 * ssh2's SFTP callbacks as promises, with SFTP status codes mapped to the file error codes of the Host port. ssh2
 * puts the status in `err.code` as a number: 2 NO_SUCH_FILE, 3 PERMISSION_DENIED, 4 FAILURE — and OpenSSH answers
 * FAILURE for EEXIST, ENOTEMPTY and EISDIR alike (ssh-field-notes.md §7).
 */

export const SFTP_NO_SUCH_FILE = 2;
export const SFTP_PERMISSION_DENIED = 3;
export const SFTP_FAILURE = 4;

type Invoke<T> = (callback: (error: Error | null | undefined, value: T) => void) => void;

export function sftpCall<T>(action: string, path: string, invoke: Invoke<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    invoke((error, value) => {
      if (error === null || error === undefined) resolve(value);
      else reject(toFileError({ error, action, path }));
    });
  });
}

export function sftpStatusOf(error: unknown): number | undefined {
  const cause = error instanceof CatalystError ? error.cause : error;
  const code = codeOf(cause);
  return typeof code === 'number' ? code : undefined;
}

export function toFileError(failure: { error: unknown; action: string; path: string }): CatalystError {
  const { error, action, path } = failure;
  const status = codeOf(error);
  const details = { path, action, sftpStatus: status };
  const options = { cause: error, details };
  if (status === SFTP_NO_SUCH_FILE)
    return new CatalystError('FILE_NOT_FOUND', `${path}: no such file or directory`, options);
  if (status === SFTP_PERMISSION_DENIED) {
    return new CatalystError('PERMISSION_DENIED', `${path}: permission denied (${action})`, options);
  }
  // Every pending SFTP request fails with this when the channel or connection goes away.
  if (describeError(error) === 'No response from server') {
    return new CatalystError('CONNECTION_LOST', `${action} ${path}: the SSH connection was lost`, options);
  }
  return new CatalystError('FILE_ERROR', `${action} ${path} failed: ${describeError(error)}`, options);
}

export function statOf(stats: Stats): FileStat {
  return { kind: kindOf(stats), size: stats.size, modifiedMs: stats.mtime * 1000 };
}

export function kindOf(stats: Stats): FileStat['kind'] {
  if (stats.isDirectory()) return 'directory';
  return stats.isFile() ? 'file' : 'other';
}

export function statPath(sftp: SFTPWrapper, path: string): Promise<Stats> {
  return sftpCall<Stats>('stat', path, (callback) => {
    sftp.stat(path, callback);
  });
}

export function lstatPath(sftp: SFTPWrapper, path: string): Promise<Stats> {
  return sftpCall<Stats>('lstat', path, (callback) => {
    sftp.lstat(path, callback);
  });
}

/**
 * Refuses, before any open, what is not a regular file (a FIFO, a socket, a device, a symlink in the file's place):
 * sftp-server's open() of a FIFO waits for a writer, and with it the host's one SFTP session (issue 39). lstat
 * then open is two steps; only the VM's own user can swap the file in between, and readWithin (one script) is there
 * for paths that a build controls.
 */
export async function checkRegularFile(sftp: SFTPWrapper, path: string): Promise<void> {
  const stats = await lstatPath(sftp, path);
  if (stats.isFile()) return;
  const kind = stats.isSymbolicLink() ? 'symlink' : stats.isFIFO() ? 'fifo' : kindOf(stats);
  throw new CatalystError('FILE_ERROR', `cannot read ${path}: not a regular file (${kind})`, {
    details: { path, action: 'read', kind },
  });
}

export function makeDirectory(sftp: SFTPWrapper, path: string, mode?: number): Promise<void> {
  return sftpCall<undefined>('mkdir', path, (callback) => {
    sftp.mkdir(path, mode === undefined ? {} : { mode }, (error) => {
      callback(error, undefined);
    });
  });
}

export function removeFile(sftp: SFTPWrapper, path: string): Promise<void> {
  return sftpCall<undefined>('unlink', path, (callback) => {
    sftp.unlink(path, (error) => {
      callback(error, undefined);
    });
  });
}

export function removeDirectory(sftp: SFTPWrapper, path: string): Promise<void> {
  return sftpCall<undefined>('rmdir', path, (callback) => {
    sftp.rmdir(path, (error) => {
      callback(error, undefined);
    });
  });
}

export function listDirectory(sftp: SFTPWrapper, path: string): Promise<DirectoryEntry[]> {
  return sftpCall('list', path, (callback: (error: Error | undefined, entries: DirectoryEntry[]) => void) => {
    sftp.readdir(path, (error, list) => {
      // readdir's attrs come from lstat: a symlink is 'other', as it is to the local host's lstat-based listing.
      const entries =
        error === undefined ? list.map((entry) => ({ name: entry.filename, kind: kindOf(entry.attrs) })) : [];
      callback(
        error,
        entries.filter((entry) => entry.name !== '.' && entry.name !== '..'),
      );
    });
  });
}

export function listDirectoryWithStats(sftp: SFTPWrapper, path: string): Promise<DirectoryEntryStat[]> {
  return sftpCall(
    'list',
    path,
    (callback: (error: Error | undefined, entries: DirectoryEntryStat[]) => void) => {
      sftp.readdir(path, (error, list) => {
        const entries =
          error === undefined
            ? list.map((entry) => ({
                name: entry.filename,
                kind: kindOf(entry.attrs),
                size: entry.attrs.size,
                modifiedMs: entry.attrs.mtime * 1000,
              }))
            : [];
        callback(
          error,
          entries.filter((entry) => entry.name !== '.' && entry.name !== '..'),
        );
      });
    },
  );
}

export function offersExtension(sftp: SFTPWrapper, name: string): boolean {
  // ssh2 keeps the server's extension list in an undocumented field; the types do not declare it.
  if (!('_extensions' in sftp)) return false;
  const extensions = sftp._extensions;
  return typeof extensions === 'object' && extensions !== null && name in extensions;
}

/**
 * Creates `path` (it must not exist: O_EXCL), writes `data`, fsyncs it where the server offers
 * fsync@openssh.com, and closes it. Errors name `reportPath`: the file the caller asked for, not a temporary one.
 */
export async function writeNewFile(
  sftp: SFTPWrapper,
  path: string,
  options: { data: Buffer; mode: number | undefined; reportPath: string },
): Promise<void> {
  const { data, reportPath } = options;
  const attributes = options.mode === undefined ? {} : { mode: options.mode };
  const handle = await sftpCall<Buffer>('write', reportPath, (callback) => {
    sftp.open(path, 'wx', attributes, callback);
  });
  const closeHandle = () =>
    sftpCall<undefined>('write', reportPath, (callback) => {
      sftp.close(handle, (error) => {
        callback(error, undefined);
      });
    });
  try {
    // ssh2 splits a long write into packets and calls back once all of it is acknowledged.
    await sftpCall<undefined>('write', reportPath, (callback) => {
      sftp.write(handle, data, 0, data.length, 0, (error) => {
        callback(error, undefined);
      });
    });
    if (offersExtension(sftp, 'fsync@openssh.com')) {
      await sftpCall<unknown>('fsync', reportPath, (callback) => {
        sftp.ext_openssh_fsync(handle, callback);
      });
    }
  } catch (error) {
    await closeHandle().catch(() => undefined);
    throw error;
  }
  await closeHandle();
}

export function appendToFile(
  sftp: SFTPWrapper,
  path: string,
  data: Buffer | string,
  mode?: number,
): Promise<void> {
  // ssh2 opens with SSH_FXF_APPEND, which OpenSSH's sftp-server maps to O_APPEND; `mode` is a new file's.
  return sftpCall<undefined>('append to', path, (callback) => {
    sftp.appendFile(path, data, mode === undefined ? {} : { mode }, (error) => {
      callback(error, undefined);
    });
  });
}

/** Up to `range.length` bytes from `range.offset`; ssh2 splits a long read into the server's packet size. */
export async function readRange(
  sftp: SFTPWrapper,
  path: string,
  range: { offset: number; length: number },
): Promise<Buffer> {
  await checkRegularFile(sftp, path);
  const handle = await sftpCall<Buffer>('read', path, (callback) => {
    sftp.open(path, 'r', callback);
  });
  const buffer = Buffer.alloc(range.length);
  let filled = 0;
  try {
    // A server may answer a read with fewer bytes than asked; ssh2 reports the end of the file as 0 bytes.
    while (filled < range.length) {
      const bytesRead = await sftpCall<number>('read', path, (callback) => {
        sftp.read(handle, buffer, filled, range.length - filled, range.offset + filled, callback);
      });
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
  } finally {
    await sftpCall<undefined>('read', path, (callback) => {
      sftp.close(handle, (error) => {
        callback(error, undefined);
      });
    }).catch(() => undefined);
  }
  return filled === range.length ? buffer : buffer.subarray(0, filled);
}

export function realPath(sftp: SFTPWrapper, path: string): Promise<string> {
  return sftpCall<string>('resolve', path, (callback) => {
    sftp.realpath(path, callback);
  });
}
