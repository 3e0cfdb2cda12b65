import { describe, expect, it } from 'vitest';
import { lowercaseAscii, matchHostnamePatterns, matchPattern } from './known-hosts-patterns.ts';

// match.c's semantics; known-hosts.test.ts also checks whole files against `ssh-keygen -F`.

describe('matchPattern', () => {
  it('knows * and ? only, anchored at both ends; [ and ] are plain characters', () => {
    const cases: [string, string, boolean][] = [
      ['web1', 'web?', true],
      ['web', 'web?', false],
      ['web12', 'web?', false],
      ['a.example.com', '*.example.com', true],
      ['example.com', '*.example.com', false],
      ['', '*', true],
      ['', '', true],
      ['x', '', false],
      ['abcabcabd', '*abc*abd', true],
      ['aXbXc', 'a*b*c', true],
      ['aXbX', 'a*b*c', false],
      ['[vm]:2200', '[vm]:22??', true],
      ['[vm]:2200', '[vm]:*', true],
      ['v', '[v]', false],
      ['Web1', 'web?', false],
      ['a'.repeat(40), `${'*a'.repeat(20)}b`, false],
    ];
    for (const [text, pattern, expected] of cases)
      expect([text, pattern, matchPattern(text, pattern)]).toEqual([text, pattern, expected]);
  });
});

describe('matchHostnamePatterns', () => {
  it('lowercases both sides, reads a comma list, and lets a matching !pattern veto the whole list', () => {
    expect(matchHostnamePatterns('VM.Example.COM', 'vm.example.com')).toBe('matched');
    expect(matchHostnamePatterns('vm.example.com', 'other,VM.EXAMPLE.*')).toBe('matched');
    expect(matchHostnamePatterns('bad.example.com', '*.example.com,!bad.*')).toBe('negated');
    expect(matchHostnamePatterns('bad.example.com', '!bad.*,*.example.com')).toBe('negated');
    expect(matchHostnamePatterns('good.example.com', '*.example.com,!bad.*')).toBe('matched');
    expect(matchHostnamePatterns('good.example.com', '!bad.*')).toBe('none');
    expect(matchHostnamePatterns('', 'a,,b')).toBe('matched');
    expect(matchHostnamePatterns('a', '')).toBe('none');
  });

  it('gives up on a list with a subpattern of 1023 characters or more, as OpenSSH does', () => {
    expect(matchHostnamePatterns('vm', `vm,${'x'.repeat(1022)}`)).toBe('matched');
    expect(matchHostnamePatterns('vm', `vm,${'x'.repeat(1023)}`)).toBe('none');
  });

  it('lowercases ASCII only, like C tolower', () => {
    expect(lowercaseAscii('VM-İ-\u212a')).toBe('vm-İ-\u212a');
    // JavaScript's toLowerCase would turn the Kelvin sign into k.
    expect(matchHostnamePatterns('k', '\u212a')).toBe('none');
  });
});
