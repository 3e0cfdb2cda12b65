import type { ReviewCommentView } from '@catalyst/protocol';
import { useState } from 'react';
import { ReviewBadges } from './ReviewDiffTable.tsx';
import { ReviewCommentForm } from './ReviewCommentForm.tsx';
import { describeLines, type Review } from './use-review.ts';

/**
 * A checkpoint's review (issue 30), under its diff: every comment in the order of the diff, with whether it is
 * stale or sent, to edit (until sent) or delete; and "Send review", which sends the unsent ones as one build
 * message. What the server refuses (a run going on) is shown as its sentence.
 */
export function ReviewPanel({ review }: { review: Review }) {
  const [sendProblem, setSendProblem] = useState<string>();
  const [isSending, setIsSending] = useState(false);
  const [hasSent, setHasSent] = useState(false);
  const { comments } = review;
  if (comments.kind === 'loading') {
    return (
      <p className="muted" role="status">
        Loading the review…
      </p>
    );
  }
  if (comments.kind === 'failed') {
    return (
      <p className="form-error" role="alert">
        {comments.message}
      </p>
    );
  }
  const unsent = comments.value.filter((comment) => comment.sentAt === undefined).length;
  const send = () => {
    setIsSending(true);
    void review.send().then((failed) => {
      setIsSending(false);
      setSendProblem(failed);
      setHasSent(failed === undefined);
    });
  };
  return (
    <section className="review-panel" aria-label="Review">
      <h4 className="review-panel__title">Review</h4>
      {comments.value.length === 0 ? (
        <p className="muted">
          To comment on a line, click its number; shift-click another to take the lines between.
        </p>
      ) : (
        <ol className="review-panel__list">
          {comments.value.map((comment) => (
            <li key={comment.id}>
              <ReviewItem comment={comment} review={review} />
            </li>
          ))}
        </ol>
      )}
      <div className="review-panel__send">
        <button type="button" className="primary" disabled={unsent === 0 || isSending} onClick={send}>
          Send review
        </button>{' '}
        <span className="muted">
          {unsent === 1
            ? 'one comment, as one build message'
            : `${String(unsent)} comments, as one build message`}
        </span>
      </div>
      {sendProblem === undefined ? null : (
        <p className="form-error" role="alert">
          {sendProblem}
        </p>
      )}
      {hasSent && sendProblem === undefined ? <p role="status">Sent: Claude builds on your review.</p> : null}
    </section>
  );
}

function ReviewItem({ comment, review }: { comment: ReviewCommentView; review: Review }) {
  const [isEditing, setIsEditing] = useState(false);
  const [problem, setProblem] = useState<string>();
  const where = `${describeLines(comment)} of ${comment.path}`;
  if (isEditing) {
    return (
      <ReviewCommentForm
        where={where}
        initialText={comment.body}
        submitLabel="Save"
        onSubmit={async (text) => {
          const failed = await review.edit(comment.id, text);
          if (failed === undefined) setIsEditing(false);
          return failed;
        }}
        onCancel={() => {
          setIsEditing(false);
        }}
      />
    );
  }
  return (
    <div className="review-note">
      <p className="review-note__where">
        <span className="review-note__path">{comment.path}</span>, {describeLines(comment)}
        <ReviewBadges comment={comment} />
      </p>
      <p className="review-note__body">{comment.body}</p>
      <p className="review-note__actions">
        {comment.sentAt === undefined ? (
          <button
            type="button"
            className="link"
            aria-label={`Edit the comment on ${where}`}
            onClick={() => {
              setIsEditing(true);
            }}
          >
            Edit
          </button>
        ) : null}{' '}
        <button
          type="button"
          className="link"
          aria-label={`Delete the comment on ${where}`}
          onClick={() => {
            void review.remove(comment.id).then(setProblem);
          }}
        >
          Delete
        </button>
      </p>
      {problem === undefined ? null : (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
