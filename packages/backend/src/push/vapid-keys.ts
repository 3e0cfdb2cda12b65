import { createECDH, randomBytes } from 'node:crypto';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import webpush from 'web-push';
import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../server/issue-summary.ts';
import { CONFIG_DIR_MODE, isErrnoException, readPrivateFile } from '../server/private-file.ts';

/**
 * Catalyst's VAPID key pair (RFC 8292), `<configDir>/push-vapid.json` (0600): made at first use and kept, since
 * every browser's push subscription is bound to the public key it was made with; a new pair would silence them
 * all. The file is written whole beside its place and linked in (which never replaces a file that appeared
 * meanwhile), and a file that is not what Catalyst writes is an error, never silently replaced.
 */

export const VAPID_FILE = 'push-vapid.json';
const FILE_MODE = 0o600;

/** An uncompressed P-256 point (65 octets) and a P-256 scalar (32 octets), base64url without padding. */
const PublicKeySchema = z.string().regex(/^B[A-Za-z0-9_-]{86}$/, 'is not a base64url P-256 public key');
const PrivateKeySchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'is not a base64url P-256 private key');

const VapidFileSchema = z.strictObject({
  version: z.literal(1),
  publicKey: PublicKeySchema,
  privateKey: PrivateKeySchema,
  createdAt: z.iso.datetime(),
});

export interface VapidKeys {
  /** What a page passes to `PushManager.subscribe()` as `applicationServerKey`. */
  readonly publicKey: string;
  /** Signs the VAPID JWTs. Never logged, never sent. */
  readonly privateKey: string;
}

export interface LoadedVapidKeys extends VapidKeys {
  /** True when this call made the pair. */
  readonly generated: boolean;
}

export async function loadVapidKeys(configDir: string): Promise<LoadedVapidKeys> {
  const path = join(configDir, VAPID_FILE);
  await mkdir(configDir, { recursive: true, mode: CONFIG_DIR_MODE });
  const existing = await readVapidFile(path);
  if (existing !== undefined) return { ...existing, generated: false };
  const keys = webpush.generateVAPIDKeys();
  const body = { version: 1, ...keys, createdAt: new Date().toISOString() };
  if (await createExclusively(path, `${JSON.stringify(body, null, 2)}\n`))
    return { ...keys, generated: true };
  const raced = await readVapidFile(path);
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

async function readVapidFile(path: string): Promise<VapidKeys | undefined> {
  const text = await readPrivateFile(path, 'the VAPID key file');
  if (text === undefined) return undefined;
  const refuse = (why: string) =>
    new CatalystError(
      'CONFIG_INVALID',
      `the VAPID key file ${path} is not valid (${why}); restore it, or delete it to have a new pair made, ` +
        'after which every device must turn notifications on again',
    );
  const parsed = VapidFileSchema.safeParse(parseJson(text));
  if (!parsed.success) throw refuse(summarizeIssues(parsed.error.issues));
  const { publicKey, privateKey } = parsed.data;
  if (publicKeyOf(privateKey) !== publicKey) throw refuse('the public key is not the private key’s');
  return { publicKey, privateKey };
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

/** Writes `path` whole, unless a file is there already (then false). */
async function createExclusively(path: string, body: string): Promise<boolean> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, body, { mode: FILE_MODE, flag: 'wx' });
    await link(temporary, path);
    return true;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') return false;
    throw new CatalystError('FILE_ERROR', `cannot create the VAPID key file ${path}`, { cause: error });
  } finally {
    await rm(temporary, { force: true });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
