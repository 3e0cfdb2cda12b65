import type { HostCheckView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  formatHostCheck,
  formatUnknownHostKey,
  hostKeyFileOf,
  parseTrustAnswer,
} from './host-check-lines.ts';
import { createPaint } from './paint.ts';

const plain = createPaint(false);
const fingerprint = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';
const unknownKey: HostCheckView = {
  name: 'devbox',
  isReady: false,
  steps: [
    { id: 'resolve', status: 'ok', detail: '127.0.0.1:2222 as ops' },
    { id: 'connect', status: 'ok', detail: 'reached' },
    {
      id: 'host-key',
      status: 'failed',
      detail: 'the key is known nowhere\nsecond line',
      fix: 'Compare the fingerprint, then confirm it.',
    },
    { id: 'auth', status: 'skipped', detail: 'not checked: an earlier step failed' },
  ],
  unknownHostKey: {
    fingerprint,
    keyType: 'ssh-ed25519',
    knownHostsName: '[127.0.0.1]:2222',
    hop: 'devbox (127.0.0.1:2222)',
  },
  ignored: ['ControlMaster (connections are not shared)'],
  checkedAt: '2026-01-01T00:00:00.000Z',
};

describe('formatHostCheck', () => {
  it('prints a line per step with its status and detail, the fix under it, and the verdict', () => {
    expect(formatHostCheck(unknownKey, plain)).toBe(
      [
        'devbox:',
        '  resolve   ok       127.0.0.1:2222 as ops',
        '  connect   ok       reached',
        '  host-key  failed   the key is known nowhere',
        '                     second line',
        '                     fix: Compare the fingerprint, then confirm it.',
        '  auth      skipped  not checked: an earlier step failed',
        '  not honoured: ControlMaster (connections are not shared)',
        'devbox is not ready.',
        '',
      ].join('\n'),
    );
  });

  it('says a host whose steps are ok or warn is ready, the warning’s fix shown', () => {
    const ready: HostCheckView = {
      ...unknownKey,
      isReady: true,
      steps: [{ id: 'tools', status: 'warning', detail: 'no git', fix: 'Install git on the VM.' }],
      ignored: [],
    };
    expect(formatHostCheck(ready, plain)).toBe(
      [
        'devbox:',
        '  tools  warning  no git',
        '                  fix: Install git on the VM.',
        'devbox is ready: runs can start there.',
        '',
      ].join('\n'),
    );
  });
});

describe('formatUnknownHostKey', () => {
  it('shows the key’s type and fingerprint, and how to read the VM’s own', () => {
    const { unknownHostKey: key } = unknownKey;
    if (key === undefined) throw new Error('no key');
    expect(formatUnknownHostKey(key, plain)).toBe(
      [
        'The host key of [127.0.0.1]:2222 is known nowhere (presented by devbox (127.0.0.1:2222)):',
        `  ssh-ed25519 ${fingerprint}`,
        'Compare it on the VM’s console with: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub',
        '',
      ].join('\n'),
    );
  });

  it('names the VM’s key file of the key’s type', () => {
    expect(hostKeyFileOf('ecdsa-sha2-nistp256')).toBe('/etc/ssh/ssh_host_ecdsa_key.pub');
    expect(hostKeyFileOf('rsa-sha2-512')).toBe('/etc/ssh/ssh_host_rsa_key.pub');
    expect(hostKeyFileOf('ssh-rsa')).toBe('/etc/ssh/ssh_host_rsa_key.pub');
    expect(hostKeyFileOf('sk-something')).toBe('/etc/ssh/ssh_host_*_key.pub');
  });
});

describe('parseTrustAnswer', () => {
  it('sends the fingerprint typed, or the one shown for yes; no declines; nothing asks again', () => {
    expect(parseTrustAnswer('  SHA256:abc ', fingerprint)).toEqual({ trust: 'SHA256:abc' });
    expect(parseTrustAnswer('Yes', fingerprint)).toEqual({ trust: fingerprint });
    expect(parseTrustAnswer('y', fingerprint)).toEqual({ trust: fingerprint });
    expect(parseTrustAnswer('no', fingerprint)).toEqual({ isDeclined: true });
    expect(parseTrustAnswer('  ', fingerprint)).toHaveProperty('problem');
  });
});
