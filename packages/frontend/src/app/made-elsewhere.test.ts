import type { IdeaView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { describeMadeElsewhere, splitMadeElsewhere } from './made-elsewhere.ts';

function idea(id: string, host: string, madeElsewhere = false): IdeaView {
  return {
    id,
    host,
    available: true,
    running: false,
    ...(madeElsewhere ? { madeElsewhere: true as const } : {}),
  };
}

describe('ideas made by another Catalyst', () => {
  const ideas = [idea('a', 'vm'), idea('b', 'vm', true), idea('c', 'gpu', true), idea('d', 'vm', true)];

  it('are hidden until shown, and counted per host', () => {
    expect(splitMadeElsewhere(ideas, false)).toEqual({
      shown: [ideas[0]],
      elsewhere: [
        { host: 'vm', count: 2 },
        { host: 'gpu', count: 1 },
      ],
    });
    expect(splitMadeElsewhere(ideas, true).shown).toEqual(ideas);
    expect(splitMadeElsewhere([idea('a', 'vm')], false).elsewhere).toEqual([]);
  });

  it('are said in words', () => {
    expect(describeMadeElsewhere({ host: 'vm', count: 2 })).toBe(
      '2 ideas on vm were made by another Catalyst that uses the same ideas folder.',
    );
    expect(describeMadeElsewhere({ host: 'gpu', count: 1 })).toBe(
      '1 idea on gpu was made by another Catalyst that uses the same ideas folder.',
    );
  });
});
