import type { AddReviewCommentBody, ReviewCommentView } from '@catalyst/protocol';
import { useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { useFetched, type Fetched } from '../base/use-fetched.ts';
import { useReviewChanges } from './review-changes.ts';

/**
 * A checkpoint's review (issue 30): its comments as the server keeps them (so they come back after a reload, in
 * any tab), and the changes a person makes to them. Each change asks for the list again, and so does a change made
 * in another tab or a new checkpoint of the project (review-changes.ts): whether a comment is stale, and which are
 * sent, are the server's to tell. A change answers undefined when it worked, or the sentence of what went wrong.
 */
export interface Review {
  readonly comments: Fetched<readonly ReviewCommentView[]>;
  add(body: AddReviewCommentBody): Promise<string | undefined>;
  edit(commentId: string, text: string): Promise<string | undefined>;
  remove(commentId: string): Promise<string | undefined>;
  send(): Promise<string | undefined>;
}

export function useReview(ideaId: string, commit: string): Review {
  const [version, setVersion] = useState(0);
  const mark = useReviewChanges().markOf(commit);
  const comments = useFetched(
    `${ideaId}\n${commit}\n${String(version)}\n${String(mark)}`,
    () => api.listReviewComments(ideaId, commit),
    { keepPrevious: true },
  );
  const attempt = async (change: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await change();
      return undefined;
    } catch (error) {
      return describeError(error);
    } finally {
      setVersion((current) => current + 1);
    }
  };
  return {
    comments,
    add: (body) => attempt(() => api.addReviewComment(ideaId, commit, body)),
    edit: (commentId, text) => attempt(() => api.editReviewComment(ideaId, commit, commentId, text)),
    remove: (commentId) => attempt(() => api.deleteReviewComment(ideaId, commit, commentId)),
    send: () => attempt(() => api.sendReview(ideaId, commit)),
  };
}

/** "line 3", "lines 3–5"; deleted lines say so. */
export function describeLines(comment: Pick<ReviewCommentView, 'side' | 'startLine' | 'endLine'>): string {
  const lines =
    comment.startLine === comment.endLine
      ? `line ${String(comment.startLine)}`
      : `lines ${String(comment.startLine)}–${String(comment.endLine)}`;
  return comment.side === 'old' ? `deleted ${lines}` : lines;
}
