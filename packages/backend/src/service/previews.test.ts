import { describe, expect, it } from 'vitest';
import { hostNameOf } from './previews.ts';

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
