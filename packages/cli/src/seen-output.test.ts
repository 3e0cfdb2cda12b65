import { describe, expect, it } from 'vitest';
import { SeenOutput } from './seen-output.ts';

const text = (value: string) => Buffer.from(value, 'utf8');

function seenOf(chunks: string[], maxBytes?: number): SeenOutput {
  const seen = new SeenOutput(maxBytes);
  for (const chunk of chunks) seen.append(text(chunk));
  return seen;
}

describe('SeenOutput.unseenPartOf', () => {
  it('is empty when the replay is what was printed already', () => {
    expect(seenOf(['$ echo hi\r\n', 'hi\r\n$ ']).unseenPartOf(text('$ echo hi\r\nhi\r\n$ ')).toString()).toBe(
      '',
    );
  });

  it('is what the shell printed after the drop, the replay starting anywhere in what was seen', () => {
    const seen = seenOf(['old output\r\n$ echo a\r\na\r\n$ ']);
    expect(seen.unseenPartOf(text('a\r\n$ echo b\r\nb\r\n$ ')).toString()).toBe('echo b\r\nb\r\n$ ');
  });

  it('keeps output that repeats what was seen (the longest overlap is the one skipped)', () => {
    expect(seenOf(['ab']).unseenPartOf(text('abab')).toString()).toBe('ab');
    expect(seenOf(['xabab']).unseenPartOf(text('ababab')).toString()).toBe('ab');
    expect(seenOf(['aaaa']).unseenPartOf(text('aaaaaa')).toString()).toBe('aa');
  });

  it('is the whole replay when nothing was seen, or when it does not overlap what was', () => {
    expect(seenOf([]).unseenPartOf(text('$ ')).toString()).toBe('$ ');
    expect(seenOf(['one\r\n']).unseenPartOf(text('two\r\n')).toString()).toBe('two\r\n');
  });

  it('finds the overlap past a full match of the replay inside what was seen', () => {
    expect(seenOf(['$ x\r\n$ x\r\n']).unseenPartOf(text('$ x\r\n')).toString()).toBe('');
    expect(seenOf(['ab', 'cab']).unseenPartOf(text('abc')).toString()).toBe('c');
  });

  it('keeps a bounded tail: at least maxBytes, then whole chunks dropped', () => {
    const seen = seenOf(['1234', '5678', '9'], 5);
    // '56789' is kept; a replay starting at '4' finds no overlap, one at '6' finds it.
    expect(seen.unseenPartOf(text('6789!')).toString()).toBe('!');
    expect(seen.unseenPartOf(text('456789!')).toString()).toBe('456789!');
  });

  it('is linear on a large repetitive tail and replay (256 KiB each)', () => {
    const seen = new SeenOutput();
    seen.append(Buffer.alloc(256 * 1024, 'a'));
    const replay = Buffer.concat([Buffer.alloc(200 * 1024, 'a'), text('b')]);
    expect(seen.unseenPartOf(replay).toString()).toBe('b');
  });
});
