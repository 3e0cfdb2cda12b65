import type { ReviewComment } from '@catalyst/protocol';

/**
 * Whether a review comment's lines have changed since its checkpoint (issue 30), told on read: the lines it quoted
 * are compared with the file now. Where they were, unchanged: current. Elsewhere, unchanged, and only there once:
 * moved (a block a later build shifted down by adding lines above it); a block found at several places (a lone
 * `}`) cannot tell which one it was, and is stale. Otherwise stale, as is a comment on a file that is gone or no
 * longer text. Lines a build deleted (`old`) stay as they were: never stale.
 */

export interface Staleness {
  isStale: boolean;
  /** Moved but unchanged: the line the block starts at now. */
  movedTo?: number;
}

/** `now`: the file's lines as they are now (review-lines.ts); undefined when it is gone or not text. */
export function judgeStaleness(
  comment: Pick<ReviewComment, 'side' | 'startLine' | 'lines'>,
  now: readonly string[] | undefined,
): Staleness {
  if (comment.side === 'old') return { isStale: false };
  if (now === undefined || comment.lines.length === 0) return { isStale: true };
  if (holdsAt(now, comment.lines, comment.startLine - 1)) return { isStale: false };
  const found = findOnlyPlace(now, comment.lines);
  return found === undefined ? { isStale: true } : { isStale: false, movedTo: found + 1 };
}

function holdsAt(now: readonly string[], block: readonly string[], at: number): boolean {
  if (at < 0 || at + block.length > now.length) return false;
  return block.every((line, index) => now[at + index] === line);
}

/** The 0-based index of the block's only place in `now`; undefined for none or several. */
function findOnlyPlace(now: readonly string[], block: readonly string[]): number | undefined {
  let found: number | undefined;
  for (let at = 0; at + block.length <= now.length; at += 1) {
    if (now[at] !== block[0] || !holdsAt(now, block, at)) continue;
    if (found !== undefined) return undefined;
    found = at;
  }
  return found;
}
