import { describe, expect, it } from 'vitest';
import { deriveHostName } from './host-name.ts';

// The rule itself is the protocol's (suggestHostName, tested there); the command adds its refusal.
describe('deriveHostName', () => {
  it('names a host as the page suggests', () => {
    expect(deriveHostName('devbox')).toBe('devbox');
    expect(deriveHostName('ops@Build.Example.com:2222')).toBe('build');
  });

  it('asks for --name when nothing is left to make one of', () => {
    expect(() => deriveHostName('ops@[::]')).toThrow(/give one with --name/);
    expect(() => deriveHostName('ops@[::]')).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
