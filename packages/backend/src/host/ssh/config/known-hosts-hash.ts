import { createHmac } from 'node:crypto';

/**
 * Hashed known_hosts names (`HashKnownHosts yes`, `ssh-keygen -H`): `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`
 * over one whole name, already lowercased and in its `[host]:port` form. hostfile.c `host_hash`, `extract_salt`.
 */

const HASH_MAGIC = '|1|';
/** The salt is the HMAC-SHA1 key and must be exactly as long as the digest, 20 bytes (`extract_salt`). */
const SALT_BYTES = 20;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface HashedName {
  readonly salt: Buffer;
  /** The names field as written; a name matches when hashing it with `salt` gives exactly this text. */
  readonly text: string;
}

export function hashHostName(name: string, salt: Buffer): string {
  const digest = createHmac('sha1', salt).update(name, 'utf8').digest('base64');
  return `${HASH_MAGIC}${salt.toString('base64')}|${digest}`;
}

/** hostfile.c compares the whole field with `host_hash(name, salt)`, so any other spelling never matches. */
export function doesHashedNameMatch(hashed: HashedName, name: string): boolean {
  return hashHostName(name, hashed.salt) === hashed.text;
}

/** A names field starting with `|`: the hashed name, or why it can never match (OpenSSH skips such lines). */
export function parseHashedName(text: string): HashedName | string {
  if (!text.startsWith(HASH_MAGIC)) return `a hashed name must start with ${HASH_MAGIC}`;
  const [encodedSalt, encodedDigest, ...rest] = text.slice(HASH_MAGIC.length).split('|');
  if (encodedSalt === undefined || encodedDigest === undefined || rest.length > 0) {
    return 'a hashed name is |1|salt|hash, each part base64';
  }
  const salt = decodeBase64(encodedSalt);
  const digest = decodeBase64(encodedDigest);
  if (salt?.length !== SALT_BYTES || digest?.length !== SALT_BYTES) {
    return `the salt and hash of a hashed name must each be ${SALT_BYTES} bytes of base64`;
  }
  if (salt.toString('base64') !== encodedSalt || digest.toString('base64') !== encodedDigest) {
    return 'the hashed name is not in the base64 form ssh-keygen writes, so it can never match';
  }
  return { salt, text };
}

function decodeBase64(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}
