import type { IdeaView } from '@catalyst/protocol';

/**
 * Ideas another Catalyst made on the same ideas folder (issue 40, item 8): hidden from the list until a person
 * chooses to show them, with a line per host that says how many there are. The choice is this browser's
 * (localStorage), kept across reloads.
 */

const SHOW_KEY = 'catalyst.showMadeElsewhere';

export interface SplitIdeas {
  /** What the list shows, in the API's order. */
  shown: IdeaView[];
  /** How many of another Catalyst's ideas each host holds, in the order the hosts first appear. */
  elsewhere: { host: string; count: number }[];
}

export function splitMadeElsewhere(ideas: readonly IdeaView[], isShowing: boolean): SplitIdeas {
  const counts = new Map<string, number>();
  for (const idea of ideas) {
    if (idea.madeElsewhere === true) counts.set(idea.host, (counts.get(idea.host) ?? 0) + 1);
  }
  return {
    shown: isShowing ? [...ideas] : ideas.filter((idea) => idea.madeElsewhere !== true),
    elsewhere: [...counts].map(([host, count]) => ({ host, count })),
  };
}

export function describeMadeElsewhere({ host, count }: { host: string; count: number }): string {
  const ideas = count === 1 ? '1 idea' : `${String(count)} ideas`;
  return `${ideas} on ${host} ${count === 1 ? 'was' : 'were'} made by another Catalyst that uses the same ideas folder.`;
}

export function readShowMadeElsewhere(): boolean {
  return localStorage.getItem(SHOW_KEY) === 'true';
}

export function saveShowMadeElsewhere(isShowing: boolean): void {
  if (isShowing) localStorage.setItem(SHOW_KEY, 'true');
  else localStorage.removeItem(SHOW_KEY);
}
