import { describe, expect, it } from 'vitest';
import { matchHostname, matchPattern, matchPatternList } from './ssh-patterns.ts';

describe('matchPattern', () => {
  it('matches * as any run and ? as exactly one character, over the whole text', () => {
    expect(matchPattern('web.internal', '*.internal')).toBe(true);
    expect(matchPattern('.internal', '*.internal')).toBe(true);
    expect(matchPattern('web', 'web?')).toBe(false);
    expect(matchPattern('web1', 'web?')).toBe(true);
    expect(matchPattern('web12', 'web?')).toBe(false);
    expect(matchPattern('', '*')).toBe(true);
    expect(matchPattern('', '?')).toBe(false);
    expect(matchPattern('abcabd', '*ab?')).toBe(true);
    expect(matchPattern('aXbXc', 'a**?c')).toBe(true);
    expect(matchPattern('aaa', '*a*a*a*')).toBe(true);
    expect(matchPattern('aa', '*a*a*a*')).toBe(false);
  });

  it('is case-sensitive and knows no character classes or commas', () => {
    expect(matchPattern('Web', 'web')).toBe(false);
    expect(matchPattern('a', '[a]')).toBe(false);
    expect(matchPattern('a', 'a,b')).toBe(false);
    expect(matchPattern('a,b', 'a,b')).toBe(true);
  });
});

describe('matchPatternList', () => {
  it('returns 1 for a plain match, -1 when a negated pattern matches, 0 otherwise', () => {
    expect(matchPatternList('db.internal', '*.internal,!bastion.internal')).toBe(1);
    expect(matchPatternList('bastion.internal', '*.internal,!bastion.internal')).toBe(-1);
    expect(matchPatternList('bastion.internal', '!bastion.internal')).toBe(-1);
    expect(matchPatternList('other', '!bastion.internal')).toBe(0);
    expect(matchPatternList('x', '')).toBe(0);
  });

  it('reads empty subpatterns and a trailing comma as match.c does', () => {
    expect(matchPatternList('', 'a,,b')).toBe(1);
    expect(matchPatternList('', 'a,')).toBe(0);
    expect(matchPatternList('a', 'a,')).toBe(1);
  });

  it('lowercases the patterns, not the text, when asked', () => {
    expect(matchPatternList('web', 'WEB', true)).toBe(1);
    expect(matchPatternList('WEB', 'web', true)).toBe(0);
    expect(matchPatternList('web', 'WEB')).toBe(0);
  });

  it('fails the whole list on a subpattern longer than match.c buffers', () => {
    expect(matchPatternList('a', `a,${'x'.repeat(1023)}`)).toBe(0);
    expect(matchPatternList('a', `a,${'x'.repeat(1022)}`)).toBe(1);
  });
});

describe('matchHostname', () => {
  it('lowercases both sides', () => {
    expect(matchHostname('Web.Internal', '*.INTERNAL')).toBe(1);
    expect(matchHostname('BASTION.internal', '*.internal,!bastion.*')).toBe(-1);
  });
});
