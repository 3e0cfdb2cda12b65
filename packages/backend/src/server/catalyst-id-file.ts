import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CatalystIdSchema } from '@catalyst/protocol';
import { setAsideDamagedFile } from '../service/own-json-file.ts';
import { readOrCreatePrivateFile } from '../service/private-file.ts';

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
  const what = "this Catalyst's id file";
  const kept = await readOrCreatePrivateFile({
    path,
    what,
    make: () => randomBytes(8).toString('hex'),
    read: async (text) => {
      const parsed = CatalystIdSchema.safeParse(text.trim());
      if (parsed.success) return parsed.data;
      await setAsideDamagedFile({ path, what, problem: 'it holds no id', logger });
      return undefined;
    },
  });
  return kept.value;
}
