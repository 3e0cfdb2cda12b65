import type { Attention } from '@catalyst/protocol';

/** "(2) Run completed · Catalyst" while there is news the person has not seen; else "<idea> · Catalyst". */
export function formatPageTitle(ideaTitle: string, unseen: readonly Attention[]): string {
  const latest = unseen.at(-1);
  if (latest === undefined) return `${ideaTitle} · Catalyst`;
  return `(${unseen.length}) ${latest.title} · Catalyst`;
}
