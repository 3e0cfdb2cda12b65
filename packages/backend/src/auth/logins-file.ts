import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { BrowserSessionIdSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { writeFileAtomically } from '../service/atomic-file.ts';
import { parseOwnJsonFile } from '../service/own-json-file.ts';
import { createBrowserLogins, type BrowserLogin, type BrowserLogins } from './browser-logins.ts';
import { CONFIG_DIR_MODE, readPrivateFile } from '../service/private-file.ts';

/**
 * `<configDir>/sessions.json`, beside the token file and as private (0600, the directory 0700): the signed-in
 * browsers, so that a restart of Catalyst keeps them (issue 25). Each write goes to a new file, flushed, renamed over
 * the old one (atomic-file.ts), so a crash leaves one or the other whole; one found damaged anyway is set aside and
 * every browser signed out, rather than Catalyst refusing to start (own-json-file.ts). The file names the token it was written under (an HMAC, which
 * says nothing of the token): under another token every session has ended, as the keys no longer match.
 */

export const SESSIONS_FILE = 'sessions.json';
const TOKEN_CHECK_LABEL = 'catalyst sessions file v1';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

const SessionsFileSchema = z.strictObject({
  version: z.literal(1),
  tokenCheck: z.string().regex(HEX_DIGEST),
  sessions: z.array(
    z.strictObject({
      id: BrowserSessionIdSchema,
      digest: z.string().regex(HEX_DIGEST),
      name: z.string().min(1).max(100),
      createdAt: z.iso.datetime(),
      lastSeenAt: z.iso.datetime(),
      isPaired: z.literal(true).optional(),
    }),
  ),
});
type SessionsFile = z.infer<typeof SessionsFileSchema>;

export interface OpenLoginsOptions {
  configDir: string;
  token: string;
  lifetimeMs: number;
  logger: Logger;
  now?: () => number;
}

/** The sessions a previous Catalyst saved (none without a file, or under another token), saved back on change. */
export async function openBrowserLogins(options: OpenLoginsOptions): Promise<BrowserLogins> {
  const path = join(options.configDir, SESSIONS_FILE);
  const tokenCheck = createHmac('sha256', options.token).update(TOKEN_CHECK_LABEL).digest('hex');
  await mkdir(options.configDir, { recursive: true, mode: CONFIG_DIR_MODE });
  const saved = await parseOwnJsonFile({
    path,
    text: await readPrivateFile(path, 'the sessions file'),
    schema: SessionsFileSchema,
    what: 'the sessions file',
    logger: options.logger,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const isSameToken = saved?.tokenCheck === tokenCheck;
  if (saved !== undefined && !isSameToken) {
    options.logger.info(
      'the token changed since the browser sessions were saved: every one of them has ended',
    );
  }
  return createBrowserLogins({
    lifetimeMs: options.lifetimeMs,
    logger: options.logger,
    ...(options.now === undefined ? {} : { now: options.now }),
    initial: isSameToken ? saved.sessions.map(fromFile) : [],
    save: (sessions) => writeSessionsFile(path, { version: 1, tokenCheck, sessions: sessions.map(toFile) }),
  });
}

async function writeSessionsFile(path: string, content: SessionsFile): Promise<void> {
  try {
    await writeFileAtomically(path, `${JSON.stringify(content)}\n`);
  } catch (error) {
    throw new CatalystError('FILE_ERROR', `cannot write the sessions file ${path}`, { cause: error });
  }
}

function fromFile({ isPaired, ...session }: SessionsFile['sessions'][number]): BrowserLogin {
  return {
    ...session,
    createdAt: Date.parse(session.createdAt),
    lastSeenAt: Date.parse(session.lastSeenAt),
    ...(isPaired === undefined ? {} : { isPaired }),
  };
}

function toFile(session: BrowserLogin): SessionsFile['sessions'][number] {
  return {
    ...session,
    createdAt: new Date(session.createdAt).toISOString(),
    lastSeenAt: new Date(session.lastSeenAt).toISOString(),
  };
}
