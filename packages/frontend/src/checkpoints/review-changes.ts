import type { RelayEvent } from '@catalyst/protocol';
import { createContext, useContext } from 'react';

/**
 * When a checkpoint's review may read otherwise than when it was fetched (issue 30): its comments changed, in this
 * tab or another (`review:changed`), or the project's files did (a build's or a restore's checkpoint), which tells
 * whether a comment is stale. A review shown in the page asks for its comments again when its mark moves.
 */
export interface ReviewChanges {
  /** The history's `seq` of the newest such event for the checkpoint `commit`; 0 when there is none. */
  markOf(commit: string): number;
}

/** From the idea's history, as the page holds it. */
export function reviewChangesOf(events: readonly RelayEvent[]): ReviewChanges {
  const byCommit = new Map<string, number>();
  let files = 0;
  for (const event of events) {
    if (event.type === 'review:changed') byCommit.set(event.commit, event.seq);
    else if (event.type === 'checkpoint:created' || event.type === 'checkpoint:restored') files = event.seq;
  }
  return { markOf: (commit) => Math.max(byCommit.get(commit) ?? 0, files) };
}

const NO_CHANGES: ReviewChanges = { markOf: () => 0 };

const ReviewChangesContext = createContext<ReviewChanges>(NO_CHANGES);

export const ReviewChangesProvider = ReviewChangesContext.Provider;

export function useReviewChanges(): ReviewChanges {
  return useContext(ReviewChangesContext);
}
