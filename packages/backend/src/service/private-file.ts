import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import { syncDirectory, writeFileSynced } from './atomic-file.ts';

/**
 * The files Catalyst keeps in its config dir for itself alone (the token, the signed-in browsers): the dir 0700, the
 * files 0600, and a file others can read refused, as ssh refuses a private key anyone can read.
 */

export const CONFIG_DIR_MODE = 0o700;

/** The text of `path`, or undefined when there is no file; `what` names it in the errors ("the token file"). */
export async function readPrivateFile(path: string, what: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) {
      throw new CatalystError(
        'CONFIG_INVALID',
        `${what} ${path} can be read by other users; run \`chmod 600 ${path}\``,
      );
    }
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    if (error instanceof CatalystError) throw error;
    throw new CatalystError('CONFIG_INVALID', `cannot read ${what} ${path}`, { cause: error });
  }
}

export function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}

/** What read-or-create found: the value, and whether this call made the file. */
export interface KeptValue {
  readonly value: string;
  readonly made: boolean;
}

/**
 * A value Catalyst makes once and keeps in a private file of its config dir (the token, its own id): read when the
 * file is there (`read` parses its text; undefined when the file holds none and was set aside), else made and
 * written with O_EXCL (0600, flushed to the disk with its folder). A file that appeared in between is read, never
 * overwritten. CONFIG_INVALID when it can be neither read nor made.
 */
export async function readOrCreatePrivateFile(options: {
  path: string;
  /** Names the file in the errors ("the token file"). */
  what: string;
  read: (text: string) => Promise<string | undefined>;
  make: () => string;
}): Promise<KeptValue> {
  const { path, what, read } = options;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  const readKept = async () => {
    const text = await readPrivateFile(path, what);
    return text === undefined ? undefined : read(text);
  };
  const existing = await readKept();
  if (existing !== undefined) return { value: existing, made: false };
  const value = options.make();
  try {
    await writeFileSynced(path, `${value}\n`, 0o600);
    await syncDirectory(dir);
    return { value, made: true };
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') {
      const raced = await readKept();
      if (raced !== undefined) return { value: raced, made: false };
    }
    throw new CatalystError('CONFIG_INVALID', `cannot create ${what} ${path}`, { cause: error });
  }
}
