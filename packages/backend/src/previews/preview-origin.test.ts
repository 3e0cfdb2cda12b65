import { describe, expect, it } from 'vitest';
import { hostNameOf, isLoopbackName } from './preview-origin.ts';

describe('the host name a preview link uses', () => {
  it('is the name the browser reached Catalyst by, without its port', () => {
    expect(hostNameOf('devbox.local:8787', '0.0.0.0')).toBe('devbox.local');
    expect(hostNameOf('[::1]:8787', '::1')).toBe('[::1]');
  });

  it('falls back to the bind address, or loopback for a wildcard one', () => {
    expect(hostNameOf(undefined, '127.0.0.1')).toBe('127.0.0.1');
    expect(hostNameOf(undefined, '0.0.0.0')).toBe('127.0.0.1');
    expect(hostNameOf('bad host/x', '::1')).toBe('[::1]');
  });
});

describe('whether a preview gets a name of its own', () => {
  it('does when Catalyst is reached on loopback, by address or by a localhost name', () => {
    for (const name of ['127.0.0.1', '127.1.2.3', '[::1]', 'localhost', 'LOCALHOST', 'catalyst.localhost']) {
      expect(isLoopbackName(name), name).toBe(true);
    }
    for (const name of ['devbox.local', '192.168.1.5', '[::2]', 'localhost.example.com', '1127.0.0.1']) {
      expect(isLoopbackName(name), name).toBe(false);
    }
  });
});
