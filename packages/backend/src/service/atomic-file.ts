import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A file of Catalyst's config dir written whole: to a temporary file beside it (0600), then renamed into place, so a
 * crash leaves the old file or the new one, never half of either. The folder is made 0700 if missing.
 */
export async function writeFileAtomically(path: string, body: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, body, { mode: 0o600 });
  await rename(temporary, path);
}
