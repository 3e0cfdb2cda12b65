import { describe, expect, it } from 'vitest';
import { suggestHostName } from './hosts.ts';

// A host's name suggested from the alias or address it is added by: lower-case letters, digits and dashes.

describe('suggestHostName', () => {
  it('keeps an alias that already is a name', () => {
    expect(suggestHostName('devbox')).toBe('devbox');
    expect(suggestHostName('gpu-2')).toBe('gpu-2');
  });

  it('turns what a name cannot hold into dashes, lower-case, trimmed', () => {
    expect(suggestHostName('Dev_Box')).toBe('dev-box');
    expect(suggestHostName('  work.VM  ')).toBe('work-vm');
    expect(suggestHostName('_lab__box_')).toBe('lab-box');
  });

  it('names user@host[:port] by its machine: a DNS name by its first label, an address whole', () => {
    expect(suggestHostName('me@vm.example.com')).toBe('vm');
    expect(suggestHostName('me@vm.example.com:2222')).toBe('vm');
    expect(suggestHostName('root@10.0.0.5:22')).toBe('10-0-0-5');
    expect(suggestHostName('me@[fd00::1]:2222')).toBe('fd00-1');
  });

  it('adds -2, -3, … to a name already taken', () => {
    expect(suggestHostName('devbox', ['devbox'])).toBe('devbox-2');
    expect(suggestHostName('devbox', ['devbox', 'devbox-2'])).toBe('devbox-3');
  });

  it('stays within 63 characters, the suffix included', () => {
    const long = 'a'.repeat(80);
    expect(suggestHostName(long)).toBe('a'.repeat(63));
    expect(suggestHostName(long, ['a'.repeat(63)])).toBe(`${'a'.repeat(61)}-2`);
  });

  it('suggests nothing when nothing usable is left', () => {
    expect(suggestHostName('')).toBe('');
    expect(suggestHostName('___')).toBe('');
    expect(suggestHostName('me@')).toBe('');
  });
});
