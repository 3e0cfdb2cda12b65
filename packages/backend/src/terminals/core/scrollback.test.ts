import { describe, expect, it } from 'vitest';
import { Scrollback } from './scrollback.ts';

describe('Scrollback', () => {
  it('keeps everything under its bound, in order', () => {
    const scrollback = new Scrollback(10);
    scrollback.append(Buffer.from('abc'));
    scrollback.append(Buffer.from('def'));
    expect(scrollback.contents().toString()).toBe('abcdef');
  });

  it('drops the oldest chunks past its bound', () => {
    const scrollback = new Scrollback(6);
    scrollback.append(Buffer.from('abc'));
    scrollback.append(Buffer.from('def'));
    scrollback.append(Buffer.from('gh'));
    expect(scrollback.contents().toString()).toBe('defgh');
    expect(scrollback.size).toBe(5);
  });

  it('keeps the tail of a chunk larger than its bound', () => {
    const scrollback = new Scrollback(4);
    scrollback.append(Buffer.from('0123456789'));
    expect(scrollback.contents().toString()).toBe('6789');
  });
});
