import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CatalystIdSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { syncDirectory, writeFileSynced } from '../service/atomic-file.ts';
import { setAsideDamagedFile } from '../service/own-json-file.ts';
import { CONFIG_DIR_MODE, isErrnoException, readPrivateFile } from './private-file.ts';

/**
 * This Catalyst's own id (issue 40, item 8): `<configDir>/catalyst-id`, 16 random hex digits made once and kept, so
 * the ideas it makes say so (`madeBy`) and another Catalyst on the same ideas folder can tell them from its own.
 * Made with O_EXCL like the token file: a file that appeared in between is read, never overwritten. A file without a
 * usable id (a power cut right after its creation, a person's edit) is set aside and a new id made: the ideas it
 * made then read as another Catalyst's, which a person can still show.
 */
export const CATALYST_ID_FILE_NAME = 'catalyst-id';

export async function resolveCatalystId(configDir: string, logger: Logger): Promise<string> {
  const path = join(configDir, CATALYST_ID_FILE_NAME);
  await mkdir(configDir, { recursive: true, mode: CONFIG_DIR_MODE });
  const existing = await readId(path, logger);
  if (existing !== undefined) return existing;
  const id = randomBytes(8).toString('hex');
  try {
    await writeFileSynced(path, `${id}\n`, 0o600);
    await syncDirectory(configDir);
    return id;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') {
      const raced = await readId(path, logger);
      if (raced !== undefined) return raced;
    }
    throw new CatalystError('CONFIG_INVALID', `cannot create ${path}`, { cause: error });
  }
}

async function readId(path: string, logger: Logger): Promise<string | undefined> {
  const text = await readPrivateFile(path, "this Catalyst's id file");
  if (text === undefined) return undefined;
  const parsed = CatalystIdSchema.safeParse(text.trim());
  if (parsed.success) return parsed.data;
  await setAsideDamagedFile({ path, what: "this Catalyst's id file", problem: 'it holds no id', logger });
  return undefined;
}
