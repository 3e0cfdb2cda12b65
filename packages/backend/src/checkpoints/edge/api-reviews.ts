import type { Api } from '@catalyst/protocol';
import type { ReviewsPort } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/**
 * Review comments on a checkpoint's diff (issue 30): listed, added, edited, deleted, and sent as one build message.
 * The commit and the comment id in the URL are checked by the contract's schemas, the checkpoint by the service.
 */

type ReviewRoutes =
  'listReviewComments' | 'addReviewComment' | 'editReviewComment' | 'deleteReviewComment' | 'sendReview';

export function reviewHandlers(reviews: ReviewsPort): ApiHandlers<Pick<Api, ReviewRoutes>> {
  return {
    listReviewComments: async ({ params }) => ({
      comments: await reviews.listReviewComments(params.id, params.commit),
    }),
    addReviewComment: async ({ params, body }) => ({
      comment: await reviews.addReviewComment(params.id, params.commit, body),
    }),
    editReviewComment: async ({ params, body }) => ({
      comment: await reviews.editReviewComment(params.id, params.commit, params.comment, body.body),
    }),
    deleteReviewComment: ({ params }) =>
      reviews.deleteReviewComment(params.id, params.commit, params.comment),
    sendReview: ({ params }) => reviews.sendReview(params.id, params.commit),
  };
}
