import { useMemo } from 'react';
import { buildDiffRows, type DiffRow, type DiffRowKind } from './diff-rows.ts';
import type { FileChange } from './tool-input.ts';

const signs: Record<DiffRowKind, string> = { add: '+', del: '-', ctx: ' ', hunk: '@' };

/** A Write, Edit or MultiEdit as a line diff; rows carry diff-add / diff-del / diff-ctx (ui-contract.md). */
export function DiffView({ change }: { change: FileChange }) {
  const { rows, omitted } = useMemo(() => buildDiffRows(change.edits), [change]);
  return <DiffTable label={`Diff of ${change.filePath}`} rows={rows} omitted={omitted} />;
}

/** Rows of a diff as a table, and how many more were cut. */
export function DiffTable({
  label,
  rows,
  omitted,
}: {
  label: string;
  rows: readonly DiffRow[];
  omitted: number;
}) {
  return (
    <div className="t-diff">
      <table className="t-diff__table" aria-label={label}>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index} className={`diff-${row.kind}`}>
              <td className="t-diff__sign" aria-hidden="true">
                {signs[row.kind]}
              </td>
              <td className="t-diff__line">{row.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {omitted > 0 ? <p className="t-diff__omitted">… {omitted} more lines not shown</p> : null}
    </div>
  );
}
