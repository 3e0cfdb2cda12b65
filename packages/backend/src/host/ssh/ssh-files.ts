import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import type { CreateOptions, HostFiles } from '../host.ts';
import type { WithSftp } from './sftp-client.ts';
import {
  appendToFile,
  checkRegularFile,
  offersExtension,
  readRange,
  writeNewFile,
  SFTP_FAILURE,
  SFTP_NO_SUCH_FILE,
  listDirectory,
  listDirectoryWithStats,
  realPath,
  lstatPath,
  makeDirectory,
  removeDirectory,
  removeFile,
  sftpCall,
  sftpStatusOf,
  statOf,
  statPath,
} from './sftp-calls.ts';

/**
 * HostFiles over SFTP (ssh-field-notes.md §7), every call on the host's shared session within its time limit
 * (sftp-client.ts). readWithin is one script on an exec channel instead (ssh-read-within.ts): SFTP cannot check a
 * path and read it in one step, nor refuse a FIFO without opening it.
 */

const POSIX_RENAME = 'posix-rename@openssh.com';

export function createSshFiles(withSftp: WithSftp, readWithin: HostFiles['readWithin']): HostFiles {
  const on = <T>(action: string, path: string, work: (sftp: SFTPWrapper) => Promise<T>): Promise<T> =>
    withSftp({ action, path }, work);
  return {
    readFile: (path) =>
      on('read', path, async (sftp) => {
        await checkRegularFile(sftp, path);
        return sftpCall<Buffer>('read', path, (callback) => {
          sftp.readFile(path, callback);
        });
      }),
    readRange: (path, offset, length) =>
      on('read', path, (sftp) => readRange(sftp, path, { offset, length })),
    writeFileAtomic: (path, data, options) =>
      on('write', path, (sftp) => writeFileAtomic(sftp, path, data, options)),
    appendFile: (path, data, options) =>
      on('append to', path, (sftp) => appendToFile(sftp, path, data, options?.mode)),
    mkdirp: (path, options) => on('create directory', path, (sftp) => mkdirp(sftp, path, options?.mode)),
    stat: (path) => on('stat', path, async (sftp) => statOf(await statPath(sftp, path))),
    list: (path) => on('list', path, (sftp) => listDirectory(sftp, path)),
    listWithStats: (path) => on('list', path, (sftp) => listDirectoryWithStats(sftp, path)),
    realpath: (path) => on('resolve', path, (sftp) => realPath(sftp, path)),
    readWithin,
    remove: (path) => on('remove', path, (sftp) => removeTree(sftp, path)),
    rename: (from, to) =>
      on('rename', from, (sftp) =>
        sftpCall<undefined>('rename', from, (callback) => {
          sftp.rename(from, to, (error) => {
            callback(error, undefined);
          });
        }),
      ),
  };
}

/**
 * Plain SFTP rename refuses to overwrite on OpenSSH; posix-rename@openssh.com is rename(2), which replaces the
 * target atomically (§7). The temporary file sits beside the target so the rename stays on one filesystem.
 */
async function writeFileAtomic(
  sftp: SFTPWrapper,
  path: string,
  data: Buffer | string,
  options?: CreateOptions,
): Promise<void> {
  if (!offersExtension(sftp, POSIX_RENAME)) {
    throw new CatalystError(
      'FILE_ERROR',
      `cannot replace ${path} atomically: the SFTP server lacks ${POSIX_RENAME}`,
      {
        details: { path },
      },
    );
  }
  const temporary = posix.join(
    posix.dirname(path),
    `.${posix.basename(path)}.catalyst-${randomBytes(6).toString('hex')}.tmp`,
  );
  const mode = options?.mode ?? (await existingMode(sftp, path));
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await writeNewFile(sftp, temporary, { data: bytes, mode, reportPath: path });
    await sftpCall<undefined>('rename', path, (callback) => {
      sftp.ext_openssh_rename(temporary, path, (error) => {
        callback(error, undefined);
      });
    });
  } catch (error) {
    // The write's error is the one to report; a temp file that cannot be removed does not change it.
    await removeFile(sftp, temporary).catch(() => undefined);
    throw error;
  }
}

/** A replaced file keeps its permission bits, as it would with an in-place write. */
async function existingMode(sftp: SFTPWrapper, path: string): Promise<number | undefined> {
  try {
    return (await statPath(sftp, path)).mode & 0o7777;
  } catch (error) {
    if (sftpStatusOf(error) === SFTP_NO_SUCH_FILE) return undefined;
    throw error;
  }
}

/** mkdir -p from the deepest component up (ssh2 has none); the root always exists. */
async function mkdirp(sftp: SFTPWrapper, path: string, mode: number | undefined): Promise<void> {
  try {
    await makeOrConfirmDirectory(sftp, path, mode);
  } catch (error) {
    const parent = posix.dirname(path);
    if (sftpStatusOf(error) !== SFTP_NO_SUCH_FILE || parent === path) throw error;
    await mkdirp(sftp, parent, mode);
    await makeOrConfirmDirectory(sftp, path, mode);
  }
}

/** SFTP reports an existing path as plain FAILURE (code 4), so a stat confirms it is a directory (§7). */
async function makeOrConfirmDirectory(
  sftp: SFTPWrapper,
  path: string,
  mode: number | undefined,
): Promise<void> {
  try {
    await makeDirectory(sftp, path, mode);
  } catch (error) {
    if (sftpStatusOf(error) !== SFTP_FAILURE) throw error;
    if (!(await statPath(sftp, path)).isDirectory()) {
      throw new CatalystError('FILE_ERROR', `${path} exists and is not a directory`, { details: { path } });
    }
  }
}

/**
 * rm -rf: symlinks are removed, never followed. A missing path is not an error. A directory without u+rwx (a
 * build's `chmod 555`) is given it first, or its entries could not be listed or removed.
 */
async function removeTree(sftp: SFTPWrapper, path: string): Promise<void> {
  let stats;
  try {
    stats = await lstatPath(sftp, path);
  } catch (error) {
    if (sftpStatusOf(error) === SFTP_NO_SUCH_FILE) return;
    throw error;
  }
  if (!stats.isDirectory()) {
    await removeFile(sftp, path);
    return;
  }
  if ((stats.mode & 0o700) !== 0o700) {
    const mode = (stats.mode & 0o7777) | 0o700;
    await sftpCall<undefined>('chmod', path, (callback) => {
      sftp.chmod(path, mode, (error) => {
        callback(error, undefined);
      });
    });
  }
  const entries = await listDirectory(sftp, path);
  // SFTP pipelines requests, so siblings go out together.
  await Promise.all(entries.map((entry) => removeTree(sftp, posix.join(path, entry.name))));
  await removeDirectory(sftp, path);
}
