import type { IdeaView } from '@catalyst/protocol';

/** `catalyst ideas`: one row per idea (id, status, title) in aligned columns. Pure. */
export function formatIdeaTable(ideas: readonly IdeaView[]): string {
  if (ideas.length === 0) return 'No ideas yet: catalyst new "title" captures one.\n';
  const rows = [['ID', 'STATUS', 'TITLE'], ...ideas.map((idea) => [idea.id, statusOf(idea), titleOf(idea)])];
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map(
      ([id = '', status = '', title = '']) =>
        `${id.padEnd(widths[0] ?? 0)}  ${status.padEnd(widths[1] ?? 0)}  ${title}`,
    )
    .join('\n')
    .concat('\n');
}

function statusOf(idea: IdeaView): string {
  if (idea.broken === true) return 'broken';
  if (!idea.available) return 'unavailable';
  const status = idea.meta?.status ?? 'unknown';
  // The page hides another Catalyst's ideas until asked; a table lists them all and says whose they are.
  const whose = idea.madeElsewhere === true ? ', another Catalyst’s' : '';
  return `${idea.running ? `${status}, running` : status}${whose}`;
}

/** A title is the person's own text: one line of it, so a newline in it cannot break the table. */
function titleOf(idea: IdeaView): string {
  const title = idea.meta?.title ?? (idea.error === undefined ? '' : `(${idea.error})`);
  return title.replace(/\s+/g, ' ');
}
