import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { syncDirectory, writeFileSynced } from '../service/atomic-file.ts';
import { setAsideDamagedFile } from '../service/own-json-file.ts';
import type { Config } from './config.ts';
import { summarizeIssues } from './issue-summary.ts';
import { CONFIG_DIR_MODE, isErrnoException, readPrivateFile } from './private-file.ts';

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

const TOKEN_FILE_MODE = 0o600;

export async function resolveToken(
  config: Pick<Config, 'token' | 'configDir'>,
  logger: Logger = pino({ level: 'silent' }),
): Promise<ResolvedToken> {
  if (config.token !== undefined) return { token: config.token, generated: false, source: 'environment' };
  const path = join(config.configDir, 'token');
  await mkdir(config.configDir, { recursive: true, mode: CONFIG_DIR_MODE });
  const existing = await readTokenFile(path, logger);
  if (existing !== undefined) return { token: existing, generated: false, source: 'file' };
  const token = randomBytes(32).toString('base64url');
  try {
    await writeFileSynced(path, `${token}\n`, TOKEN_FILE_MODE);
    await syncDirectory(config.configDir);
    return { token, generated: true, source: 'file' };
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') {
      const raced = await readTokenFile(path, logger);
      if (raced !== undefined) return { token: raced, generated: false, source: 'file' };
    }
    throw new CatalystError('CONFIG_INVALID', `cannot create the token file ${path}`, { cause: error });
  }
}

/** The token in the file, or undefined when there is no file. Refuses a file others can read, like ssh does. */
async function readTokenFile(path: string, logger: Logger): Promise<string | undefined> {
  const text = await readPrivateFile(path, 'the token file');
  if (text === undefined) return undefined;
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
