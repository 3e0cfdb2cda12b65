import { MAX_DIFF_BYTES } from '@catalyst/protocol';
import { useMemo, useState } from 'react';
import { api } from '../base/api.ts';
import { formatSize } from '../base/format.ts';
import { useFetched } from '../base/use-fetched.ts';
import { capDiffRows } from '../transcript/diff-rows.ts';
import { ReviewDiffTable } from './ReviewDiffTable.tsx';
import { ReviewPanel } from './ReviewPanel.tsx';
import { splitUnifiedDiff, type FileDiff } from './unified-diff.ts';
import { useReview, type Review } from './use-review.ts';
import './review.css';

/** Up to this many files, each starts open; past it, each starts closed (the list is the overview). */
export const OPEN_FILES_UP_TO = 5;

interface CheckpointDiffProps {
  id: string;
  ideaId: string;
  commit: string;
}

/**
 * What a checkpoint changed, fetched when opened: one collapsible diff per file, its lines to comment on, and the
 * checkpoint's review under them (issue 30).
 */
export function CheckpointDiff({ id, ideaId, commit }: CheckpointDiffProps) {
  const fetched = useFetched(`${ideaId}\n${commit}`, () => api.checkpointDiff(ideaId, commit));
  const review = useReview(ideaId, commit);
  return (
    <section id={id} className="t-changes" aria-label="Changes of this build">
      {fetched.kind === 'loading' ? (
        <p className="muted" role="status">
          Loading the changes…
        </p>
      ) : fetched.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {fetched.message}
        </p>
      ) : (
        <>
          <FileDiffList diff={fetched.value.diff} isTruncated={fetched.value.truncated} review={review} />
          <ReviewPanel review={review} />
        </>
      )}
    </section>
  );
}

function FileDiffList({ diff, isTruncated, review }: { diff: string; isTruncated: boolean; review: Review }) {
  const { files } = useMemo(() => splitUnifiedDiff(diff), [diff]);
  const isOpenAtFirst = files.length <= OPEN_FILES_UP_TO;
  return (
    <>
      {isTruncated ? (
        <p className="t-changes__note" role="note">
          Truncated: the diff is longer than {formatSize(MAX_DIFF_BYTES)}; the rest is not shown.
        </p>
      ) : null}
      {files.length === 0 ? <p className="muted">No file changed.</p> : null}
      <ul className="t-changes__files">
        {files.map((file, index) => (
          <li key={`${String(index)}:${file.path}`}>
            <FileDiffView
              file={file}
              isOpenAtFirst={isOpenAtFirst}
              isCut={isTruncated && index === files.length - 1}
              review={review}
            />
          </li>
        ))}
      </ul>
    </>
  );
}

interface FileDiffViewProps {
  file: FileDiff;
  isOpenAtFirst: boolean;
  /** The last file of a truncated diff: its rows stop where the diff was cut. */
  isCut: boolean;
  review: Review;
}

/** One file: a toggle naming it (path, how it changed, +/−), then its rows; a binary file is only named. */
function FileDiffView({ file, isOpenAtFirst, isCut, review }: FileDiffViewProps) {
  const [isOpen, setIsOpen] = useState(isOpenAtFirst);
  return (
    <div className="t-changes__file">
      <button
        type="button"
        className="t-changes__toggle"
        aria-expanded={isOpen}
        onClick={() => {
          setIsOpen((open) => !open);
        }}
      >
        <span className="t-changes__icon" aria-hidden="true">
          {isOpen ? '▾' : '▸'}
        </span>
        <span className="t-changes__path">
          {file.from === undefined ? file.path : `${file.from} → ${file.path}`}
        </span>{' '}
        <span className="t-changes__stat">{describeFileStat(file, isCut)}</span>
      </button>
      {isOpen ? <FileDiffBody file={file} review={review} /> : null}
    </div>
  );
}

/** "modified, +3 −1", "added, binary", "modified, +900 −0, cut short". */
function describeFileStat(file: FileDiff, isCut: boolean): string {
  const counts = file.isBinary ? 'binary' : `+${String(file.insertions)} −${String(file.deletions)}`;
  return `${file.status}, ${counts}${isCut ? ', cut short' : ''}`;
}

function FileDiffBody({ file, review }: { file: FileDiff; review: Review }) {
  const capped = useMemo(() => capDiffRows(file.rows), [file]);
  if (file.isBinary)
    return <p className="t-changes__empty muted">A binary file: its contents are not shown.</p>;
  if (file.rows.length === 0) {
    return <p className="t-changes__empty muted">No lines changed (an empty file, or only its mode).</p>;
  }
  return <ReviewDiffTable file={file} rows={capped.rows} omitted={capped.omitted} review={review} />;
}
