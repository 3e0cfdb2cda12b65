import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isReachableFromElsewhere, lanAddressesOf, pairingOrigin } from './pairing-origin.ts';

const base = { bind: '127.0.0.1', port: 7433, lanAddresses: ['192.168.1.20'] };

describe('pairingOrigin', () => {
  it('is CATALYST_PUBLIC_URL whenever it is set', () => {
    const publicUrl = 'https://catalyst.example.com';
    expect(pairingOrigin({ ...base, publicUrl, requestHost: '192.168.1.20:7433' })).toBe(publicUrl);
    expect(pairingOrigin({ ...base, publicUrl, bind: '0.0.0.0' })).toBe(publicUrl);
  });

  it('is the address the asking browser used when that is not loopback', () => {
    expect(pairingOrigin({ ...base, bind: '0.0.0.0', requestHost: 'laptop.lan:7433' })).toBe(
      'http://laptop.lan:7433',
    );
    expect(pairingOrigin({ ...base, bind: '::', requestHost: '[fd00::5]:7433' })).toBe(
      'http://[fd00::5]:7433',
    );
  });

  it('is the listen address for a browser on loopback, this machine’s address for a wildcard bind', () => {
    expect(pairingOrigin({ ...base, bind: '0.0.0.0', requestHost: '127.0.0.1:7433' })).toBe(
      'http://192.168.1.20:7433',
    );
    expect(pairingOrigin({ ...base, bind: '::', lanAddresses: ['fd00::5'] })).toBe('http://[fd00::5]:7433');
    expect(pairingOrigin({ ...base, bind: '10.0.0.7', requestHost: 'localhost:7433' })).toBe(
      'http://10.0.0.7:7433',
    );
    expect(pairingOrigin({ ...base, bind: '0.0.0.0', lanAddresses: [] })).toBe('http://0.0.0.0:7433');
  });

  it('is the asking browser’s own address when Catalyst listens on loopback (this machine only)', () => {
    expect(pairingOrigin({ ...base, requestHost: 'localhost:7433' })).toBe('http://localhost:7433');
    expect(pairingOrigin(base)).toBe('http://127.0.0.1:7433');
    expect(pairingOrigin({ ...base, bind: '::1' })).toBe('http://[::1]:7433');
  });

  it('ignores a Host header that is not a host', () => {
    for (const requestHost of ['', 'evil.example/path', 'a b', 'user@evil.example', 'x:notaport']) {
      expect(pairingOrigin({ ...base, requestHost })).toBe('http://127.0.0.1:7433');
    }
  });
});

describe('isReachableFromElsewhere', () => {
  it('is true for a public URL or an address other than loopback', () => {
    expect(isReachableFromElsewhere({ bind: '127.0.0.1' })).toBe(false);
    expect(isReachableFromElsewhere({ bind: 'localhost' })).toBe(false);
    expect(isReachableFromElsewhere({ bind: '0.0.0.0' })).toBe(true);
    expect(isReachableFromElsewhere({ bind: '127.0.0.1', publicUrl: 'https://c.example.com' })).toBe(true);
  });
});

describe('lanAddressesOf', () => {
  const info = (address: string, family: 'IPv4' | 'IPv6', internal = false): NetworkInterfaceInfo =>
    ({
      address,
      family,
      internal,
      netmask: '',
      mac: '',
      cidr: null,
      ...(family === 'IPv6' ? { scopeid: 0 } : {}),
    }) as NetworkInterfaceInfo;

  it('lists the external addresses, IPv4 first, without loopback or link-local ones', () => {
    const interfaces = {
      lo: [info('127.0.0.1', 'IPv4', true), info('::1', 'IPv6', true)],
      eth0: [info('fe80::1', 'IPv6'), info('2001:db8::7', 'IPv6'), info('192.168.1.20', 'IPv4')],
      wlan0: undefined,
    };
    expect(lanAddressesOf(interfaces)).toEqual(['192.168.1.20', '2001:db8::7']);
  });
});
