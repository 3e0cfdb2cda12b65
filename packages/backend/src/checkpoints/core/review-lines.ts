/**
 * Lines of a file as review comments quote them (issue 30): split at `\n`, a `\r` before it dropped (a CRLF file's
 * lines read as a LF file's), and no empty last line for a file that ends with a line end, as an editor numbers
 * them and as a unified diff counts them.
 */
export function splitFileLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines `startLine` to `endLine` (1-based, both included); undefined when the file has fewer lines. */
export function linesBetween(
  lines: readonly string[],
  startLine: number,
  endLine: number,
): string[] | undefined {
  if (startLine < 1 || endLine < startLine || endLine > lines.length) return undefined;
  return lines.slice(startLine - 1, endLine);
}
