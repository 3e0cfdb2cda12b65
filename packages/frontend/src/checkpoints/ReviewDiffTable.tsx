import type { ReviewCommentView, ReviewSide } from '@catalyst/protocol';
import { Fragment, useState, type MouseEvent, type ReactNode } from 'react';
import type { DiffRow } from '../transcript/diff-rows.ts';
import { ReviewCommentForm } from './ReviewCommentForm.tsx';
import type { DiffLineNumbers, FileDiff } from './unified-diff.ts';
import { describeLines, type Review } from './use-review.ts';

/**
 * A file of a checkpoint's diff with its line numbers, where a person comments (issue 30): a click on a line's
 * number selects it, a shift-click on another of the same side makes a range, and the comment form opens under it.
 * Lines the build left (added or context) are commented on the new side, lines it deleted on the old side. The
 * comments already made show under the last line they are about.
 */

const SIGNS: Record<DiffRow['kind'], string> = { add: '+', del: '-', ctx: ' ', hunk: '@' };

interface Selection {
  side: ReviewSide;
  start: number;
  end: number;
}

/** A line a comment can be about: its number on the side it is commented on. */
interface Target {
  side: ReviewSide;
  line: number;
}

interface ReviewDiffTableProps {
  file: FileDiff;
  rows: readonly DiffRow[];
  omitted: number;
  review: Review;
}

export function ReviewDiffTable({ file, rows, omitted, review }: ReviewDiffTableProps) {
  const [selection, setSelection] = useState<Selection>();
  const comments = review.comments.kind === 'loaded' ? review.comments.value : [];
  const select = (target: Target, event: MouseEvent) => {
    setSelection((current) => extendSelection(current, target, event.shiftKey));
  };
  return (
    <div className="t-diff">
      <table className="t-diff__table review-diff" aria-label={`Diff of ${file.path}`}>
        <tbody>
          {rows.map((row, index) => {
            const target = targetOf(row, file.lineNumbers[index]);
            const endsHere = (side: ReviewSide, line: number) =>
              target?.side === side && target.line === line;
            const here = comments.filter(
              (comment) =>
                pathOnSide(file, comment.side) === comment.path && endsHere(comment.side, comment.endLine),
            );
            return (
              <Fragment key={index}>
                <tr
                  className={`diff-${row.kind}${isInside(target, selection) ? ' review-diff__selected' : ''}`}
                >
                  <NumberCell target={target} path={file.path} onSelect={select} />
                  <td className="t-diff__sign" aria-hidden="true">
                    {SIGNS[row.kind]}
                  </td>
                  <td className="t-diff__line">{row.text}</td>
                </tr>
                {here.length === 0 ? null : <CommentRow comments={here} />}
                {selection !== undefined && endsHere(selection.side, selection.end) ? (
                  <NewCommentRow
                    file={file}
                    selection={selection}
                    review={review}
                    onDone={() => {
                      setSelection(undefined);
                    }}
                  />
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {omitted > 0 ? <p className="t-diff__omitted">… {omitted} more lines not shown</p> : null}
    </div>
  );
}

/** A click selects one line; a shift-click on the same side takes every line from the selection to it. */
function extendSelection(current: Selection | undefined, target: Target, isShift: boolean): Selection {
  if (!isShift || current?.side !== target.side) {
    return { side: target.side, start: target.line, end: target.line };
  }
  return {
    side: target.side,
    start: Math.min(current.start, target.line),
    end: Math.max(current.end, target.line),
  };
}

function isInside(target: Target | undefined, selection: Selection | undefined): boolean {
  return (
    target !== undefined &&
    selection?.side === target.side &&
    target.line >= selection.start &&
    target.line <= selection.end
  );
}

interface NewCommentRowProps {
  file: FileDiff;
  selection: Selection;
  review: Review;
  onDone: () => void;
}

/** The form under the selected lines; closed once the comment is saved, or on Cancel. */
function NewCommentRow({ file, selection, review, onDone }: NewCommentRowProps) {
  const lines = { side: selection.side, startLine: selection.start, endLine: selection.end };
  return (
    <tr className="review-diff__form">
      <td colSpan={3}>
        <ReviewCommentForm
          where={`${describeLines(lines)} of ${file.path}`}
          submitLabel="Add comment"
          onSubmit={async (text) => {
            const failed = await review.add({ path: pathOnSide(file, selection.side), ...lines, body: text });
            if (failed === undefined) onDone();
            return failed;
          }}
          onCancel={onDone}
        />
      </td>
    </tr>
  );
}

/** The line a row is commented on by: added and context rows on the new side, deleted rows on the old. */
function targetOf(row: DiffRow, numbers: DiffLineNumbers | undefined): Target | undefined {
  if (row.kind === 'del' && numbers?.old !== undefined) return { side: 'old', line: numbers.old };
  if ((row.kind === 'add' || row.kind === 'ctx') && numbers?.new !== undefined) {
    return { side: 'new', line: numbers.new };
  }
  return undefined;
}

/** A renamed file's lines before the build are under its old path. */
function pathOnSide(file: FileDiff, side: ReviewSide): string {
  return side === 'old' ? (file.from ?? file.path) : file.path;
}

interface NumberCellProps {
  target: Target | undefined;
  path: string;
  onSelect: (target: Target, event: MouseEvent) => void;
}

function NumberCell({ target, path, onSelect }: NumberCellProps) {
  if (target === undefined) return <td className="review-diff__number" />;
  const what = describeLines({ side: target.side, startLine: target.line, endLine: target.line });
  return (
    <td className="review-diff__number">
      <button
        type="button"
        className="review-diff__line-button"
        aria-label={`Comment on ${what} of ${path}`}
        title="Comment on this line (shift-click another to take a range)"
        onClick={(event) => {
          onSelect(target, event);
        }}
      >
        {target.line}
      </button>
    </td>
  );
}

function CommentRow({ comments }: { comments: readonly ReviewCommentView[] }) {
  return (
    <tr className="review-diff__comments">
      <td colSpan={3}>
        {comments.map((comment) => (
          <div key={comment.id} className="review-note">
            <p className="review-note__where">
              {describeLines(comment)}
              <ReviewBadges comment={comment} />
            </p>
            <p className="review-note__body">{comment.body}</p>
          </div>
        ))}
      </td>
    </tr>
  );
}

/**
 * "changed since", "sent": what the server says of a comment, each after a " · " in the text (issue 40: read aloud
 * or copied, "line 1sent" ran the badge into the lines).
 */
export function ReviewBadges({ comment }: { comment: ReviewCommentView }) {
  return (
    <>
      {comment.isStale ? (
        <Badge stale title="A later change touched these lines">
          changed since
        </Badge>
      ) : null}
      {comment.movedTo === undefined ? null : <Badge>now at line {comment.movedTo}</Badge>}
      {comment.sentAt === undefined ? null : <Badge title="Sent to Claude as part of a review">sent</Badge>}
    </>
  );
}

function Badge({ stale, title, children }: { stale?: boolean; title?: string; children: ReactNode }) {
  return (
    <>
      <span className="review-badge__sep"> · </span>
      <span className={stale === true ? 'review-badge review-badge--stale' : 'review-badge'} title={title}>
        {children}
      </span>
    </>
  );
}
