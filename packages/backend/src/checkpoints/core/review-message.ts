import type { ReviewCommentView } from '@catalyst/protocol';

/**
 * The build message a review becomes (issue 30): one message for all of a checkpoint's comments, each numbered,
 * naming its file and lines, quoting the lines in a code block, then what the person wrote. A comment whose lines
 * have changed since says so, so Claude does not look for them where they were; one on deleted lines says that the
 * lines are the file's before the build.
 */

export const STALE_NOTE = '(these lines have changed since)';

/** A build named in the heading by its message's first words at most (a person reads it in the transcript). */
const BUILD_WORDS = 8;
const BUILD_CHARS = 60;

export interface ReviewToSend {
  commit: string;
  /** The message of the build the checkpoint was made after, when it was one (a run id means nothing to a person). */
  buildMessage?: string | undefined;
  comments: readonly ReviewCommentView[];
}

export function composeReviewMessage(review: ReviewToSend): string {
  const build = review.buildMessage === undefined ? '' : firstWords(review.buildMessage);
  const made = build === '' ? '' : ` made by the build “${build}”`;
  const count = review.comments.length === 1 ? 'one comment' : `${String(review.comments.length)} comments`;
  const heading =
    `Review of the changes${made} (checkpoint ${review.commit.slice(0, 12)}): ${count}. ` +
    'Each names a file and lines, quotes them, then says what to do about them.';
  const parts = orderForReview(review.comments).map((comment, index) => describeComment(comment, index + 1));
  return [heading, ...parts].join('\n\n');
}

/** In the order of a diff: by file, then lines a build deleted before the ones it left, then by line. */
export function orderForReview<T extends Pick<ReviewCommentView, 'path' | 'side' | 'startLine'>>(
  comments: readonly T[],
): T[] {
  return [...comments].sort(
    (a, b) =>
      compareText(a.path, b.path) ||
      Number(a.side === 'new') - Number(b.side === 'new') ||
      a.startLine - b.startLine,
  );
}

function describeComment(comment: ReviewCommentView, number: number): string {
  const notes = [
    comment.side === 'old' ? '(deleted by that build; as the file was before it)' : undefined,
    comment.isStale ? STALE_NOTE : undefined,
    comment.movedTo === undefined ? undefined : `(moved since: now from line ${String(comment.movedTo)})`,
  ].filter((note) => note !== undefined);
  const title = `${String(number)}. ${comment.path}, ${lineRange(comment)}${notes.map((note) => ` ${note}`).join('')}:`;
  const fence = fenceFor(comment.lines);
  return [title, fence, ...comment.lines, fence, comment.body].join('\n');
}

/** "Add a README" of "Add a README\n\nwith…": the first line's first words, "…" when there is more. */
export function firstWords(message: string): string {
  const [first = '', ...rest] = message.trim().split('\n');
  const line = first
    .split(/\s+/)
    .filter((word) => word !== '')
    .join(' ');
  let kept = line.split(' ').slice(0, BUILD_WORDS).join(' ');
  if (kept.length > BUILD_CHARS) kept = kept.slice(0, BUILD_CHARS).trimEnd();
  const isCut = kept.length < line.length || rest.join('').trim() !== '';
  return isCut ? `${kept}…` : kept;
}

/** "line 3", "lines 3-5". */
export function lineRange(comment: Pick<ReviewCommentView, 'startLine' | 'endLine'>): string {
  return comment.startLine === comment.endLine
    ? `line ${String(comment.startLine)}`
    : `lines ${String(comment.startLine)}-${String(comment.endLine)}`;
}

/** Three backticks, or one more than the longest run of them at the start of a quoted line (which would close it). */
function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) {
    const run = /^\s*(`+)/.exec(line)?.[1]?.length ?? 0;
    longest = Math.max(longest, run);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
