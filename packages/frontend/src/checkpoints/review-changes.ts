import type { RelayEvent } from '@catalyst/protocol';
import { createContext, useContext, useMemo } from 'react';

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
  return fromMarks(marksOf(events));
}

/**
 * The same for the page: a new value only when a mark moved (every event makes a new history, and each review shown
 * would render again for it).
 */
export function useReviewChangesOf(events: readonly RelayEvent[]): ReviewChanges {
  const marks = useMemo(() => marksOf(events), [events]);
  return useMemo(() => fromMarks(marks), [marks]);
}

/** The marks as one string (`<files seq> <commit>:<seq> …`), equal while none moved. */
function marksOf(events: readonly RelayEvent[]): string {
  const byCommit = new Map<string, number>();
  let files = 0;
  for (const event of events) {
    if (event.type === 'review:changed') byCommit.set(event.commit, event.seq);
    else if (event.type === 'checkpoint:created' || event.type === 'checkpoint:restored') files = event.seq;
  }
  return [String(files), ...[...byCommit].map(([commit, seq]) => `${commit}:${String(seq)}`)].join(' ');
}

function fromMarks(marks: string): ReviewChanges {
  const [files = '0', ...commits] = marks.split(' ');
  const byCommit = new Map(
    commits.map((entry) => {
      const [commit = '', seq = '0'] = entry.split(':');
      return [commit, Number(seq)] as const;
    }),
  );
  return { markOf: (commit) => Math.max(byCommit.get(commit) ?? 0, Number(files)) };
}

const NO_CHANGES: ReviewChanges = { markOf: () => 0 };

const ReviewChangesContext = createContext<ReviewChanges>(NO_CHANGES);

export const ReviewChangesProvider = ReviewChangesContext.Provider;

export function useReviewChanges(): ReviewChanges {
  return useContext(ReviewChangesContext);
}
