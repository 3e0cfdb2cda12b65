import { diffLines, type Change } from 'diff';
import type { FileEdit } from './tool-input.ts';

export type DiffRowKind = 'add' | 'del' | 'ctx' | 'hunk';

export interface DiffRow {
  readonly kind: DiffRowKind;
  readonly text: string;
}

/** Past this many rows a diff is cut: a 1 MB Write would otherwise become tens of thousands of table rows. */
export const MAX_DIFF_ROWS = 1000;
/** Myers' diff is quadratic at worst; past this the edit is shown as all removed, then all added. */
const DIFF_TIMEOUT_MS = 200;

/**
 * The rows of a file change: per edit, old→new line by line (jsdiff's diffLines). With several edits, each starts
 * with a "hunk" row naming it. `omitted` counts the rows cut past MAX_DIFF_ROWS.
 */
export function buildDiffRows(edits: readonly FileEdit[]): { rows: readonly DiffRow[]; omitted: number } {
  const rows: DiffRow[] = [];
  edits.forEach((edit, index) => {
    if (edits.length > 1) rows.push({ kind: 'hunk', text: `Edit ${index + 1} of ${edits.length}` });
    for (const row of diffEdit(edit)) rows.push(row);
  });
  return capDiffRows(rows);
}

/** The first MAX_DIFF_ROWS rows, and how many more there were. */
export function capDiffRows(rows: readonly DiffRow[]): { rows: readonly DiffRow[]; omitted: number } {
  return rows.length <= MAX_DIFF_ROWS
    ? { rows, omitted: 0 }
    : { rows: rows.slice(0, MAX_DIFF_ROWS), omitted: rows.length - MAX_DIFF_ROWS };
}

function diffEdit({ oldText, newText }: FileEdit): DiffRow[] {
  const changes: Change[] = diffLines(oldText, newText, { timeout: DIFF_TIMEOUT_MS }) ?? [
    { value: oldText, added: false, removed: true, count: 0 },
    { value: newText, added: true, removed: false, count: 0 },
  ];
  return changes.flatMap((change) => {
    const kind: DiffRowKind = change.added ? 'add' : change.removed ? 'del' : 'ctx';
    return splitLines(change.value).map((text) => ({ kind, text }));
  });
}

/** A value's lines, without the empty piece a final newline leaves. */
function splitLines(value: string): string[] {
  if (value === '') return [];
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
