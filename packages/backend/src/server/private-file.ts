import { readFile, stat } from 'node:fs/promises';
import { CatalystError } from '../core/catalyst-error.ts';

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
