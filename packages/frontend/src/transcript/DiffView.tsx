import { useMemo } from 'react';
import { buildDiffRows, type DiffRowKind } from './diff-rows.ts';
import type { FileChange } from './tool-input.ts';

const signs: Record<DiffRowKind, string> = { add: '+', del: '-', ctx: ' ', hunk: '@' };

/** A Write, Edit or MultiEdit as a line diff; rows carry diff-add / diff-del / diff-ctx (ui-contract.md). */
export function DiffView({ change }: { change: FileChange }) {
  const { rows, omitted } = useMemo(() => buildDiffRows(change.edits), [change]);
  return (
    <div className="t-diff">
      <table className="t-diff__table" aria-label={`Diff of ${change.filePath}`}>
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
