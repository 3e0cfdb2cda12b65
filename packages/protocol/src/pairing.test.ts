import { describe, expect, it } from 'vitest';
import { isLoopbackHost, pairingCodeOf, pairingLink } from './pairing.ts';

describe('pairing links', () => {
  it('carry the code after #, and give it back from the fragment', () => {
    const link = pairingLink('http://192.168.1.20:7433', 'a-B_c9');
    expect(link).toBe('http://192.168.1.20:7433/pair#code=a-B_c9');
    const url = new URL(link);
    expect(url.pathname + url.search).toBe('/pair');
    expect(pairingCodeOf(url.hash)).toBe('a-B_c9');
  });

  it('have no code in an empty or foreign fragment', () => {
    for (const fragment of ['', '#', '#code=', '#token=abc', 'other=1'])
      expect(pairingCodeOf(fragment)).toBeUndefined();
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback by name and address', () => {
    for (const host of [
      'localhost',
      'catalyst.localhost',
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      'LOCALHOST',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '192.168.1.20',
      'example.com',
      '128.0.0.1',
      'localhost.example.com',
      '127.example.com',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
