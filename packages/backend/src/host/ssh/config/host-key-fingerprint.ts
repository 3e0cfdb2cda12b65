import { createHash } from 'node:crypto';
import { CatalystError } from '../../../core/catalyst-error.ts';

/**
 * OpenSSH's default fingerprint, as `ssh-keygen -lf` and `ssh` print it: `SHA256:` + base64(sha256(blob)) without
 * the `=` padding (sshkey.c `fingerprint_b64`). A person compares it with what the VM's console shows, so a pasted
 * one is read tolerantly and compared exactly.
 */

const SHA256_PREFIX = 'SHA256:';
/** 32 bytes of digest are 43 base64 characters once the one `=` of padding is dropped. */
const SHA256_BASE64 = /^[A-Za-z0-9+/]{43}$/;

export function fingerprintOf(blob: Buffer): string {
  return `${SHA256_PREFIX}${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Reads a fingerprint as a person pastes it: `SHA256:…` or the base64 alone, with spaces around, a trailing `=`,
 * or a whole `ssh-keygen -l` line (`256 SHA256:… comment (ED25519)`). Returns the `SHA256:…` form.
 */
export function parseFingerprint(text: string): string {
  const words = text.trim().split(/\s+/);
  const word = words.length === 1 ? words[0] : words.find((candidate) => hasSha256Prefix(candidate));
  const body = (
    word !== undefined && hasSha256Prefix(word) ? word.slice(SHA256_PREFIX.length) : word
  )?.replace(/=$/, '');
  if (body === undefined || !SHA256_BASE64.test(body) || !isCanonicalDigest(body)) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      'expected a SHA256 fingerprint as `ssh-keygen -lf` prints it (SHA256: and 43 base64 characters); ' +
        'for an older MD5 one (aa:bb:…), run `ssh-keygen -E sha256 -lf` on the key instead',
      { details: { fingerprint: text.slice(0, 200) } },
    );
  }
  return `${SHA256_PREFIX}${body}`;
}

/** Whether `pasted` is the fingerprint of `blob`; throws as parseFingerprint does when `pasted` is not one. */
export function doesFingerprintMatch(blob: Buffer, pasted: string): boolean {
  return parseFingerprint(pasted) === fingerprintOf(blob);
}

function hasSha256Prefix(word: string): boolean {
  return word.slice(0, SHA256_PREFIX.length).toUpperCase() === SHA256_PREFIX;
}

/** The last of 43 characters carries 2 spare bits that a real digest leaves zero; anything else is a typo. */
function isCanonicalDigest(body: string): boolean {
  return Buffer.from(body, 'base64').toString('base64') === `${body}=`;
}
