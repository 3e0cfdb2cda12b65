import { createECDH, randomBytes } from 'node:crypto';
import { link, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import webpush from 'web-push';
import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { CONFIG_DIR_MODE, isErrnoException, readPrivateFile } from '../service/private-file.ts';
import { syncDirectory, writeFileSynced } from '../service/atomic-file.ts';
import { parseOwnJsonFile } from '../service/own-json-file.ts';

/**
 * Catalyst's VAPID key pair (RFC 8292), `<configDir>/push-vapid.json` (0600): made at first use and kept, since
 * every browser's push subscription is bound to the public key it was made with; a new pair would silence them
 * all. The file is written whole beside its place, flushed, and linked in (which never replaces a file that
 * appeared meanwhile), then its folder flushed. One found empty, torn or not a pair (a crash before its data reached
 * the disk, issue 39) is set aside as `<name>.broken-<timestamp>` with a warning (own-json-file.ts) and a new pair
 * is made: the browsers must then subscribe again (open-web-push.ts drops their old subscriptions first).
 */

export const VAPID_FILE = 'push-vapid.json';
const FILE_MODE = 0o600;

/** An uncompressed P-256 point (65 octets) and a P-256 scalar (32 octets), base64url without padding. */
const PublicKeySchema = z.string().regex(/^B[A-Za-z0-9_-]{86}$/, 'is not a base64url P-256 public key');
const PrivateKeySchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'is not a base64url P-256 private key');

const VapidFileSchema = z
  .strictObject({
    version: z.literal(1),
    publicKey: PublicKeySchema,
    privateKey: PrivateKeySchema,
    createdAt: z.iso.datetime(),
  })
  .refine((file) => publicKeyOf(file.privateKey) === file.publicKey, {
    message: 'the public key is not the private key’s',
  });

export interface VapidKeys {
  /** What a page passes to `PushManager.subscribe()` as `applicationServerKey`. */
  readonly publicKey: string;
  /** Signs the VAPID JWTs. Never logged, never sent. */
  readonly privateKey: string;
}

export interface LoadedVapidKeys extends VapidKeys {
  /** True when this call made the pair (none was kept, or the one kept was damaged and set aside). */
  readonly generated: boolean;
}

export interface LoadVapidKeysOptions {
  /** Takes the warning about a damaged file set aside. */
  logger: Logger;
  /**
   * Runs before a new pair is kept, e.g. to forget what was bound to the old one: a crash after it leaves no file,
   * so the next start makes a pair (and runs it) again.
   */
  beforeMaking?: () => Promise<void>;
}

export async function loadVapidKeys(
  configDir: string,
  options: LoadVapidKeysOptions,
): Promise<LoadedVapidKeys> {
  const { logger } = options;
  const path = join(configDir, VAPID_FILE);
  await mkdir(configDir, { recursive: true, mode: CONFIG_DIR_MODE });
  const existing = await readVapidFile(path, logger);
  if (existing !== undefined) return { ...existing, generated: false };
  await options.beforeMaking?.();
  const keys = webpush.generateVAPIDKeys();
  const body = { version: 1, ...keys, createdAt: new Date().toISOString() };
  if (await createExclusively(path, `${JSON.stringify(body, null, 2)}\n`))
    return { ...keys, generated: true };
  const raced = await readVapidFile(path, logger);
  if (raced === undefined) throw new CatalystError('FILE_ERROR', `the VAPID key file ${path} vanished`);
  return { ...raced, generated: false };
}

/**
 * The subject of the VAPID JWTs: a contact for the push service's operator. Catalyst's public URL when it is https
 * (push services refuse http: ones); otherwise a mailto: that names Catalyst, as there is nobody else to name.
 */
export function vapidSubject(publicUrl: string | undefined): string {
  if (publicUrl !== undefined && new URL(publicUrl).protocol === 'https:') return new URL(publicUrl).origin;
  return 'mailto:catalyst@localhost';
}

/** The kept pair; undefined when there is none, or when it was damaged and has been set aside. */
async function readVapidFile(path: string, logger: Logger): Promise<VapidKeys | undefined> {
  const what = 'the VAPID key file';
  const text = await readPrivateFile(path, what);
  const parsed = await parseOwnJsonFile({ path, text, schema: VapidFileSchema, what, logger });
  return parsed === undefined ? undefined : { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}

function publicKeyOf(privateKey: string): string | undefined {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
    return ecdh.getPublicKey('base64url');
  } catch {
    return undefined;
  }
}

/** Writes `path` whole and on the disk, unless a file is there already (then false). */
async function createExclusively(path: string, body: string): Promise<boolean> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFileSynced(temporary, body, FILE_MODE);
    await link(temporary, path);
    await rm(temporary, { force: true });
    await syncDirectory(dirname(path));
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') return false;
    throw new CatalystError('FILE_ERROR', `cannot create the VAPID key file ${path}`, { cause: error });
  } finally {
    await rm(temporary, { force: true });
  }
}
