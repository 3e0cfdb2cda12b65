import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshKeygenKit, type GeneratedKey, type SshKeygenKit } from '@catalyst/testkit';
import { captureCatalystError } from '../../../core/capture-error.ts';
import { describeHostKeyBlob } from './host-key-blob.ts';
import { doesFingerprintMatch, fingerprintOf, parseFingerprint } from './host-key-fingerprint.ts';

// Real keys from ssh-keygen, and `ssh-keygen -lf` as the reference for the fingerprint, label and bits.

let kit: SshKeygenKit;
let keys: GeneratedKey[];

beforeAll(async () => {
  kit = await createSshKeygenKit();
  keys = await Promise.all([
    kit.generateKey({ type: 'ed25519', comment: 'ed' }),
    kit.generateKey({ type: 'rsa', bits: 2048, comment: 'rsa' }),
    kit.generateKey({ type: 'ecdsa', bits: 256, comment: 'ec256' }),
    kit.generateKey({ type: 'ecdsa', bits: 521, comment: 'ec521' }),
  ]);
});

afterAll(async () => {
  await kit.remove();
});

function blobOf(fields: (string | Buffer)[]): Buffer {
  return Buffer.concat(
    fields.map((field) => {
      const value = typeof field === 'string' ? Buffer.from(field) : field;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(value.length);
      return Buffer.concat([length, value]);
    }),
  );
}

describe('fingerprints and key descriptions', () => {
  it('print as ssh-keygen -lf does: bits, SHA256 fingerprint, comment, (TYPE)', async () => {
    for (const key of keys) {
      const { stdout } = await kit.keygen(['-lf', key.publicKeyPath]);
      const description = describeHostKeyBlob(key.blob);
      if (typeof description === 'string') throw new Error(description);
      expect(`${description.bits} ${fingerprintOf(key.blob)} ${key.comment} (${description.label})`).toBe(
        stdout.trim(),
      );
      expect(description.keyType).toBe(key.keyType);
    }
  });

  it('refuses blobs OpenSSH would refuse: truncated, trailing bytes, wrong curve, unknown or certificate types', () => {
    const ed25519 = keys[0]?.blob ?? Buffer.alloc(0);
    const cases: [Buffer, RegExp][] = [
      [ed25519.subarray(0, ed25519.length - 1), /truncated or malformed/],
      [Buffer.concat([ed25519, Buffer.from([0])]), /truncated or malformed/],
      [blobOf(['ecdsa-sha2-nistp256', 'nistp384', Buffer.alloc(97, 4)]), /truncated or malformed/],
      [blobOf(['ssh-foo', 'x']), /"ssh-foo" is not a key type OpenSSH knows/],
      [blobOf(['constructor', 'x']), /"constructor" is not a key type OpenSSH knows/],
      [blobOf(['__proto__', 'x']), /"__proto__" is not a key type OpenSSH knows/],
      [blobOf(['ssh-ed25519-cert-v01@openssh.com', 'x']), /host certificate, which Catalyst cannot check/],
      [Buffer.from([0, 0, 0]), /does not start with its type/],
    ];
    for (const [blob, problem] of cases) expect(describeHostKeyBlob(blob)).toMatch(problem);
  });

  it('reads the sizes of key types ssh-keygen here need not make: DSA by p, security keys', () => {
    const dsa = blobOf(['ssh-dss', Buffer.from([0, 0x80, ...Buffer.alloc(127)]), 'q', 'g', 'y']);
    expect(describeHostKeyBlob(dsa)).toEqual({ keyType: 'ssh-dss', label: 'DSA', bits: 1024 });
    const sk = blobOf(['sk-ssh-ed25519@openssh.com', Buffer.alloc(32), 'ssh:']);
    expect(describeHostKeyBlob(sk)).toEqual({
      keyType: 'sk-ssh-ed25519@openssh.com',
      label: 'ED25519-SK',
      bits: 256,
    });
  });
});

describe('parseFingerprint', () => {
  it('takes what a person pastes: with or without SHA256:, spaces, padding, or a whole ssh-keygen -l line', () => {
    const key = keys[0];
    if (key === undefined) throw new Error('no key');
    const fingerprint = fingerprintOf(key.blob);
    const body = fingerprint.slice('SHA256:'.length);
    for (const pasted of [
      fingerprint,
      `  ${fingerprint}\n`,
      body,
      ` ${body}= `,
      `sha256:${body}`,
      `256 ${fingerprint} root@vm (ED25519)`,
    ]) {
      expect(parseFingerprint(pasted)).toBe(fingerprint);
      expect(doesFingerprintMatch(key.blob, pasted)).toBe(true);
    }
    expect(doesFingerprintMatch(keys[1]?.blob ?? Buffer.alloc(0), fingerprint)).toBe(false);
  });

  it('refuses MD5 fingerprints, typos and fragments with a sentence saying what is expected', () => {
    const body = fingerprintOf(keys[0]?.blob ?? Buffer.alloc(0)).slice('SHA256:'.length);
    // A 43rd character with its 2 spare bits set cannot end a real digest.
    const typo = `${body.slice(0, 42)}B`;
    for (const pasted of [
      'MD5:16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48',
      body.slice(1),
      `${body}x`,
      typo,
      '',
      'SHA256:',
    ]) {
      const error = captureCatalystError(() => parseFingerprint(pasted));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain('ssh-keygen -E sha256 -lf');
    }
  });
});
