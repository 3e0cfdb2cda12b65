import { describe, expect, it } from 'vitest';
import { relayEvent } from '../../test/support/transcript-fixtures.ts';
import { reviewChangesOf } from './review-changes.ts';

// When a review shown in the page asks for its comments again: its own comments changed (in any tab), or the
// project's files did (whether a comment is stale).

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const reviewChanged = (seq: number, commit: string) => relayEvent(seq, { type: 'review:changed', commit });
const checkpoint = (seq: number, commit: string) =>
  relayEvent(seq, {
    type: 'checkpoint:created',
    commit,
    parent: null,
    kind: 'build',
    filesChanged: 1,
    insertions: 1,
    deletions: 0,
    files: [],
  });

describe('reviewChangesOf', () => {
  it('moves a checkpoint`s mark with its own review changes only', () => {
    const changes = reviewChangesOf([reviewChanged(3, A), reviewChanged(5, B), reviewChanged(7, A)]);
    expect(changes.markOf(A)).toBe(7);
    expect(changes.markOf(B)).toBe(5);
    expect(reviewChangesOf([]).markOf(A)).toBe(0);
  });

  it('moves every mark with a new checkpoint of the project (staleness is told against its files)', () => {
    const changes = reviewChangesOf([checkpoint(2, A), reviewChanged(3, A), checkpoint(9, B)]);
    expect(changes.markOf(A)).toBe(9);
    expect(changes.markOf(B)).toBe(9);
  });
});
