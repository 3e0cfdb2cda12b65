import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { setAsideDamagedFile } from '../service/own-json-file.ts';
import { summarizeIssues } from '../core/issue-summary.ts';
import { readOrCreatePrivateFile } from '../service/private-file.ts';

/**
 * The access token when CATALYST_TOKEN is not set: `<configDir>/token`, created once with 256 random bits and
 * reused on every start, so a login link keeps working across restarts. Created with O_EXCL (`wx`): a file (or a
 * symlink) that appeared in between is read, never overwritten; flushed to the disk with its folder. An empty token
 * file, what a power cut right after its creation leaves, is set aside with a warning and a new token made (issue
 * 39); any other file without a usable token is refused, as a person may have written it.
 */

export interface ResolvedToken {
  readonly token: string;
  /** True when this call created the token file. */
  readonly generated: boolean;
  /**
   * Where the token came from: CATALYST_TOKEN (`environment`), which Catalyst must not echo, or its token file
   * (`file`), whose login link it prints at every start (issue 40, item 3).
   */
  readonly source: TokenSource;
}

export type TokenSource = 'environment' | 'file';

/** Printable ASCII without spaces: it travels in a header, a cookie (percent-encoded) and a login link. */
export const TokenSchema = z
  .string()
  .min(1, { message: 'is set but empty; unset it or give it a value', abort: true })
  .min(32, 'must be at least 32 characters')
  .max(1024, 'must be at most 1024 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export async function resolveToken(
  config: { readonly token?: string | undefined; readonly configDir: string },
  logger: Logger = pino({ level: 'silent' }),
): Promise<ResolvedToken> {
  if (config.token !== undefined) return { token: config.token, generated: false, source: 'environment' };
  const path = join(config.configDir, 'token');
  const kept = await readOrCreatePrivateFile({
    path,
    what: 'the token file',
    make: () => randomBytes(32).toString('base64url'),
    read: (text) => parseTokenFile(path, text, logger),
  });
  return { token: kept.value, generated: kept.made, source: 'file' };
}

/** The token in the file's text; undefined when the file was empty (set aside). A file someone wrote is refused. */
async function parseTokenFile(path: string, text: string, logger: Logger): Promise<string | undefined> {
  if (text.trim() === '') {
    await setAsideDamagedFile({ path, what: 'the token file', problem: 'it is empty', logger });
    return undefined;
  }
  const parsed = TokenSchema.safeParse(text.trim());
  if (!parsed.success) {
    throw new CatalystError(
      'CONFIG_INVALID',
      `the token file ${path} does not hold a usable token (${summarizeIssues(parsed.error.issues)}); delete it to have a new one generated`,
    );
  }
  return parsed.data;
}
