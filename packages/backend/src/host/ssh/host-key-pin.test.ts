import { describe, expect, it } from 'vitest';
import { captureCatalystError } from '../../core/capture-error.ts';
import { createHostKeyCheck, fingerprintOf, parseKnownHostsLine } from './host-key-pin.ts';

// Two real ed25519 host keys and the fingerprint `ssh-keygen -lf` printed for the first (ssh-field-notes.md §6).
const GOOD = 'AAAAC3NzaC1lZDI1NTE5AAAAIMGa4OtGleqrET8eznCgDjphZt625Bb8Uva8HFlMu8hH';
const GOOD_FINGERPRINT = 'SHA256:dogY1I9YdFBGygDwKR4rVtBlFsTjnKTAgI6wz3b9NNM';
const OTHER = 'AAAAC3NzaC1lZDI1NTE5AAAAIAN+IbcPjC0IRHSFa50LhwyIEyZf9T7MT6o40J8hJ4YQ';

describe('parseKnownHostsLine', () => {
  it('reads ssh-keyscan output, a plain host line and a bare public key alike', () => {
    for (const line of [
      `[127.0.0.1]:42222 ssh-ed25519 ${GOOD}`,
      `vm.example.com ssh-ed25519 ${GOOD} a comment`,
      `  ssh-ed25519 ${GOOD}\n`,
    ]) {
      const pin = parseKnownHostsLine(line);
      expect(pin.keyType).toBe('ssh-ed25519');
      expect(pin.blob.equals(Buffer.from(GOOD, 'base64'))).toBe(true);
      expect(pin.fingerprint).toBe(GOOD_FINGERPRINT);
    }
  });

  it('refuses markers, unknown types, non-base64 keys and a key whose own type differs', () => {
    const lines = [
      `@cert-authority *.example ssh-ed25519 ${GOOD}`,
      `host ssh-foo ${GOOD}`,
      'host ssh-ed25519 not*base64',
      `host ecdsa-sha2-nistp256 ${GOOD}`,
      'host ssh-ed25519',
      '',
    ];
    for (const line of lines)
      expect(captureCatalystError(() => parseKnownHostsLine(line)).code).toBe('INVALID_ARGUMENT');
  });
});

describe('createHostKeyCheck', () => {
  it('accepts only the pinned blob, returns a real boolean, and remembers what it refused', () => {
    const check = createHostKeyCheck(parseKnownHostsLine(`h ssh-ed25519 ${GOOD}`));
    expect(check.algorithms).toEqual(['ssh-ed25519']);
    // ssh2 treats any non-undefined return value as the verdict, so it must be exactly true or false (§6).
    expect(check.verify(Buffer.from(GOOD, 'base64'))).toBe(true);
    expect(check.refusedFingerprint()).toBeUndefined();
    expect(check.verify(Buffer.from(OTHER, 'base64'))).toBe(false);
    expect(check.refusedFingerprint()).toBe(fingerprintOf(Buffer.from(OTHER, 'base64')));
    expect(check.verify(GOOD)).toBe(false);
  });

  it('pins RSA keys to SHA-2 signatures', () => {
    const rsaBlob = Buffer.concat([Buffer.from([0, 0, 0, 7]), Buffer.from('ssh-rsa'), Buffer.alloc(8)]);
    const check = createHostKeyCheck(parseKnownHostsLine(`h ssh-rsa ${rsaBlob.toString('base64')}`));
    expect(check.algorithms).toEqual(['rsa-sha2-512', 'rsa-sha2-256']);
  });
});
