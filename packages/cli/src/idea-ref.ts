import { IDEA_ID_PATTERN, type IdeaId, type IdeaView } from '@catalyst/protocol';
import type { ApiClient } from './api-client.ts';
import { CliError } from './cli-error.ts';

/**
 * `<idea>` on the command line: an idea id as is, or else the title of exactly one idea (exact first, then
 * ignoring case), from `GET /api/ideas`.
 */
export async function resolveIdea(api: ApiClient, reference: string): Promise<IdeaId> {
  if (IDEA_ID_PATTERN.test(reference)) return reference;
  const { ideas } = await api.call('listIdeas', {});
  return pickIdeaByTitle(ideas, reference).id;
}

export function pickIdeaByTitle(ideas: readonly IdeaView[], reference: string): IdeaView {
  const wanted = reference.trim();
  const exact = ideas.filter((idea) => idea.meta?.title === wanted);
  const matches =
    exact.length > 0
      ? exact
      : ideas.filter((idea) => idea.meta?.title.toLowerCase() === wanted.toLowerCase());
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return only;
  if (matches.length === 0) {
    throw new CliError(
      'IDEA_NOT_FOUND',
      `No idea has the id or title “${wanted}” (catalyst ideas lists them).`,
    );
  }
  const ids = matches.map((idea) => idea.id).join(', ');
  throw new CliError(
    'IDEA_AMBIGUOUS',
    `${String(matches.length)} ideas are titled “${wanted}”: give its id (${ids}).`,
  );
}

/** The seq of the idea's newest event (`GET /api/ideas/:id`): subscribing after it replays nothing. */
export async function newestSeqOf(api: ApiClient, ideaId: IdeaId): Promise<number | undefined> {
  return (await api.call('getIdea', { params: { id: ideaId } })).idea.lastSeq;
}
