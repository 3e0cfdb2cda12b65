import { z } from 'zod';
import { CommitIdSchema } from './checkpoints.ts';

/**
 * Review comments on a checkpoint's diff (issue 30). A person comments on a line or a range of lines of a build's
 * diff: on the new side (the file as the build left it) or on lines the build deleted (the old side, the file as it
 * was before). The comments of a checkpoint gather into its review; "Send review" sends them as one build message
 * that quotes each with its file, line numbers and lines. They are kept in the idea's folder on its host
 * (`reviews.json`), sent ones too, marked sent. A comment whose lines a later change touched is stale: told on
 * read, by comparing the lines it quoted with the file in `project/` now.
 */

/** `rc-` and 16 lower-case hex digits. */
export const ReviewCommentIdSchema = z.string().regex(/^rc-[0-9a-f]{16}$/, 'not a review comment id');

/** `new`: lines of the file as the checkpoint has it; `old`: lines the build deleted, as its parent had them. */
export const ReviewSideSchema = z.enum(['new', 'old']);
export type ReviewSide = z.infer<typeof ReviewSideSchema>;

/** A comment's text is at most this many characters. */
export const MAX_REVIEW_COMMENT_CHARS = 10_000;
/** A comment is about at most this many lines. */
export const MAX_REVIEW_RANGE_LINES = 200;
/** An idea keeps at most this many comments, sent ones included (delete some to add more). */
export const MAX_REVIEW_COMMENTS = 1_000;

const LineNumberSchema = z.int().min(1).max(100_000_000);
const CommentTextSchema = z.string().trim().min(1, 'a comment says something').max(MAX_REVIEW_COMMENT_CHARS);

/** `POST /api/ideas/:id/reviews/:commit/comments`. `endLine` defaults to `startLine` (one line). */
export const AddReviewCommentBodySchema = z
  .strictObject({
    /** The file's path in the project, on that side (a renamed file's old path for `old`). */
    path: z.string().min(1).max(16_384),
    side: ReviewSideSchema.default('new'),
    startLine: LineNumberSchema,
    endLine: LineNumberSchema.optional(),
    body: CommentTextSchema,
  })
  .refine((body) => body.endLine === undefined || body.endLine >= body.startLine, {
    message: 'endLine comes at or after startLine',
    path: ['endLine'],
  })
  .refine((body) => (body.endLine ?? body.startLine) - body.startLine < MAX_REVIEW_RANGE_LINES, {
    message: `a comment is about at most ${String(MAX_REVIEW_RANGE_LINES)} lines`,
    path: ['endLine'],
  });
export type AddReviewCommentBody = z.infer<typeof AddReviewCommentBodySchema>;

/** `PATCH /api/ideas/:id/reviews/:commit/comments/:commentId`: a comment not sent yet gets new text. */
export const EditReviewCommentBodySchema = z.strictObject({ body: CommentTextSchema });
export type EditReviewCommentBody = z.infer<typeof EditReviewCommentBodySchema>;

/** A comment as kept in `reviews.json`: with the lines it is about, as they were at the checkpoint. */
export const ReviewCommentSchema = z.strictObject({
  id: ReviewCommentIdSchema,
  commit: CommitIdSchema,
  path: z.string(),
  side: ReviewSideSchema,
  startLine: LineNumberSchema,
  endLine: LineNumberSchema,
  /** The commented lines' text (without line ends), read from the checkpoint (or its parent, `old`). */
  lines: z.array(z.string()),
  body: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /** When it went out in a review; a sent comment is kept, and no longer edited. */
  sentAt: z.iso.datetime().optional(),
  /** The run its review started, when the send started one. */
  sentRunId: z.string().optional(),
});
export type ReviewComment = z.infer<typeof ReviewCommentSchema>;

export const REVIEWS_FILE_SCHEMA_VERSION = 1;

/** `<idea>/reviews.json` on the idea's host. */
export const ReviewsFileSchema = z.strictObject({
  schemaVersion: z.literal(REVIEWS_FILE_SCHEMA_VERSION),
  comments: z.array(ReviewCommentSchema).max(MAX_REVIEW_COMMENTS),
});
export type ReviewsFile = z.infer<typeof ReviewsFileSchema>;

/**
 * A comment as the API shows it. `isStale`: its lines are no longer in the file as it is now in `project/` (changed,
 * or the file is gone); lines moved but unchanged are not stale, and `movedTo` says where they start now. A comment
 * on deleted lines (`old`) is never stale: nothing later changes what a build deleted.
 */
export const ReviewCommentViewSchema = ReviewCommentSchema.extend({
  isStale: z.boolean(),
  movedTo: LineNumberSchema.optional(),
});
export type ReviewCommentView = z.infer<typeof ReviewCommentViewSchema>;

/** `GET /api/ideas/:id/reviews/:commit/comments`: in the order of the diff (file, side, line), sent ones too. */
export const ReviewCommentListResponseSchema = z.object({ comments: z.array(ReviewCommentViewSchema) });
export const ReviewCommentResponseSchema = z.object({ comment: ReviewCommentViewSchema });

/**
 * `POST /api/ideas/:id/reviews/:commit/send`: the checkpoint's unsent comments as one build message. `message` is
 * the text sent; `runId` the run it started (absent when the message waits to be sent); `comments` the ones it
 * quoted, now marked sent.
 */
export const SendReviewResponseSchema = z.object({
  message: z.string(),
  runId: z.string().optional(),
  comments: z.array(ReviewCommentViewSchema),
});
export type SendReviewResponse = z.infer<typeof SendReviewResponseSchema>;
