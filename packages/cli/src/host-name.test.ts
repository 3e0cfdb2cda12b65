import { describe, expect, it } from 'vitest';
import { deriveHostName } from './host-name.ts';

describe('deriveHostName', () => {
  it('keeps an alias that is already a name', () => {
    expect(deriveHostName('devbox')).toBe('devbox');
    expect(deriveHostName('gpu-2')).toBe('gpu-2');
  });

  it('names user@host[:port] by its host, a DNS name by its first label, as the page does', () => {
    expect(deriveHostName('ops@Build.Example.com:2222')).toBe('build');
    expect(deriveHostName('root@10.0.0.7')).toBe('10-0-0-7');
    expect(deriveHostName('me@[fe80::1]:22')).toBe('fe80-1');
    expect(deriveHostName('My_Box')).toBe('my-box');
    expect(deriveHostName('-.lab.')).toBe('lab');
  });

  it('stays within 63 characters, without a trailing dash', () => {
    const name = deriveHostName(`${'a'.repeat(62)}.b`);
    expect(name).toBe('a'.repeat(62));
    expect(deriveHostName('a'.repeat(70))).toHaveLength(63);
  });

  it('asks for --name when nothing is left to make one of', () => {
    expect(() => deriveHostName('ops@[::]')).toThrow(/give one with --name/);
    expect(() => deriveHostName('ops@[::]')).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
