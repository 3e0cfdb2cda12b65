import type { ReviewCommentView, SendReviewResponse } from '@catalyst/protocol';
import { CatalystError } from '../src/core/catalyst-error.ts';
import type { ReviewsPort } from '../src/service/ports.ts';
import { settle, type IdeasDouble } from './server-idea-double.ts';

/** Review comments (issue 30) for the edge tests: the double has no checkpoints, so none has comments. */
export class ReviewsDouble implements ReviewsPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  listReviewComments(id: string, commit: string): Promise<ReviewCommentView[]> {
    return this.#noCheckpoint(`listReviewComments ${id} ${commit}`, id, commit);
  }

  addReviewComment(id: string, commit: string): Promise<ReviewCommentView> {
    return this.#noCheckpoint(`addReviewComment ${id} ${commit}`, id, commit);
  }

  editReviewComment(id: string, commit: string, commentId: string): Promise<ReviewCommentView> {
    return this.#noComment(`editReviewComment ${id} ${commit} ${commentId}`, id, commentId);
  }

  deleteReviewComment(id: string, commit: string, commentId: string): Promise<void> {
    return this.#noComment(`deleteReviewComment ${id} ${commit} ${commentId}`, id, commentId);
  }

  sendReview(id: string, commit: string): Promise<SendReviewResponse> {
    return this.#noCheckpoint(`sendReview ${id} ${commit}`, id, commit);
  }

  #noCheckpoint(call: string, id: string, commit: string): Promise<never> {
    return settle(() => {
      this.#ideas.calls.push(call);
      this.#ideas.find(id);
      throw new CatalystError('CHECKPOINT_NOT_FOUND', `${commit} is not one of this idea's checkpoints.`);
    });
  }

  #noComment(call: string, id: string, commentId: string): Promise<never> {
    return settle(() => {
      this.#ideas.calls.push(call);
      this.#ideas.find(id);
      throw new CatalystError('REVIEW_COMMENT_NOT_FOUND', `There is no comment ${commentId}.`);
    });
  }
}
