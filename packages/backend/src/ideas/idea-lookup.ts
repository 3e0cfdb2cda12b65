import type { IdeaMeta } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { checkIdeaId } from './idea-store.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { IdeaIndex } from './idea-index.ts';
import { toUnavailable } from './idea-meta-changes.ts';

/**
 * Finding an idea's host: the index first (so an idea on a host that is down fails as that host's problem), then
 * every configured host. An id the index knows is never looked for elsewhere.
 */

export interface IdeaWhereabouts {
  hosts: HostRegistry;
  index: IdeaIndex;
}

/** The idea's host and its meta.json; IDEA_NOT_FOUND when no host has it, HOST_UNAVAILABLE when its host fails. */
export async function locateIdea(
  where: IdeaWhereabouts,
  id: string,
): Promise<{ host: string; meta: IdeaMeta }> {
  checkIdeaId(id);
  const known = where.index.hostOf(id);
  const candidates = known === undefined ? where.hosts.all().map((h) => h.name) : [known];
  for (const host of candidates) {
    try {
      return { host, meta: await (await where.hosts.store(host)).get(id) };
    } catch (error) {
      if (!(isCatalystError(error) && error.code === 'IDEA_NOT_FOUND') || known !== undefined)
        throw toUnavailable(error, host);
    }
  }
  throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`);
}

/** The host holding the idea's folder, whatever its meta.json holds: the index first, then every host. */
export async function hostHolding(where: IdeaWhereabouts, id: string): Promise<string> {
  checkIdeaId(id);
  const known = where.index.hostOf(id);
  if (known !== undefined) return known;
  for (const { name } of where.hosts.all()) {
    try {
      if (await (await where.hosts.store(name)).has(id)) return name;
    } catch (error) {
      throw toUnavailable(error, name);
    }
  }
  throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`);
}
