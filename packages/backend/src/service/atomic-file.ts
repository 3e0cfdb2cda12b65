import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A file of Catalyst's config dir written whole: to a temporary file beside it (0600), flushed to the disk, then
 * renamed into place and the folder flushed too, so a crash or a power cut leaves the old file or the new one,
 * never half of either, nor an empty one (issue 39: a rename can reach the disk before the data it points at).
 * The folder is made 0700 if missing.
 */
export async function writeFileAtomically(path: string, body: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFileSynced(temporary, body);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // The new file is in place: a folder that cannot be flushed (some filesystems refuse fsync on a folder, EINVAL)
  // must not report the write as failed, or the caller would keep its old state while the disk holds the new.
  await syncDirectory(dirname(path)).catch(() => undefined);
}

/** A new file (O_EXCL: never one that appeared in between, nor a symlink) holding `body`, on the disk when this resolves. */
export async function writeFileSynced(path: string, body: string, mode = 0o600): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(body);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (a rename, a new file) to the disk. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
