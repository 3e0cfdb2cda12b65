import type { Logger } from 'pino';
import { CatalystError } from '../core/catalyst-error.ts';
import type { ActiveRuns } from '../runs/active-runs.ts';
import type { Asides } from '../asides/asides.ts';
import type { Autopilots } from '../queue/autopilots.ts';
import type { HostRegistry } from './host-registry.ts';
import type { IdeaIndex } from '../ideas/idea-index.ts';
import type { Previews } from '../previews/previews.ts';
import type { Terminals } from '../terminals/terminals.ts';
import type { WarmSessions } from '../runs/warm-sessions.ts';

/**
 * What holds a host (issue 39, item 2), for a change that reconnects it or its removal: that closes its SSH pool,
 * and whatever goes over the pool then ends `lost` while what it started goes on on the VM. Runs, asides and queues
 * (going or paused) are a person's work: the change is refused while there is one. Terminals, previews and warm
 * sessions are ended first, by their tags, over the pool that is still open (endAllOn).
 */
export interface HostHolds {
  readonly runs: number;
  readonly asides: number;
  readonly queues: number;
}

export interface HostUsers {
  /** What refuses a change of the host now (synchronous: nothing may start between this and the change). */
  holdsOf: (hostName: string) => HostHolds;
  /** Ends the host's terminals, previews and warm sessions; called before its pool closes. Never rejects. */
  endAllOn: (hostName: string) => Promise<void>;
  /** How many ideas the host holds (its listing, else what Catalyst last saw). */
  countIdeas: (hostName: string) => Promise<number>;
}

/** RUN_IN_PROGRESS naming what holds the host, unless nothing does. */
export function refuseWhenHeld(hostName: string, holds: HostHolds): void {
  const parts = [
    counted(holds.runs, 'run'),
    counted(holds.asides, 'aside'),
    counted(holds.queues, 'queue (going or paused)', 'queues (going or paused)'),
  ].filter((part) => part !== undefined);
  if (parts.length === 0) return;
  const what = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}`;
  throw new CatalystError(
    'RUN_IN_PROGRESS',
    `${hostName} is in use (${what ?? ''}): change or remove the host once they have ended, or stop them first.`,
    { details: { runs: holds.runs, asides: holds.asides, queues: holds.queues } },
  );
}

function counted(count: number, one: string, many = `${one}s`): string | undefined {
  if (count === 0) return undefined;
  return count === 1 ? `${/^[aeiou]/.test(one) ? 'an' : 'a'} ${one}` : `${String(count)} ${many}`;
}

export interface HostUsersParts {
  active: ActiveRuns;
  autopilots: Autopilots;
  asides: Asides;
  terminals: Terminals;
  previewEngine: Previews;
  warm: WarmSessions;
}

export function hostUsersOf(
  service: { hosts: HostRegistry; index: IdeaIndex; logger: Logger },
  parts: HostUsersParts,
): HostUsers {
  const { index } = service;
  return {
    holdsOf: (hostName) => {
      const ideas = new Set(index.idsOn(hostName));
      const onHost = (id: string) => ideas.has(id) || index.hostOf(id) === hostName;
      const ids = [...ideas];
      return {
        runs: parts.active.ids().filter(onHost).length,
        asides: ids.filter((id) => parts.asides.isAsking(id)).length,
        queues: ids.filter((id) => parts.autopilots.isHolding(id)).length,
      };
    },
    endAllOn: async (hostName) => {
      // The terminals are taken now, before any await: one opened on the host's new connection stays.
      const closingTerminals = parts.terminals.closeAllOn(hostName);
      const ids = index.idsOn(hostName);
      const results = await Promise.allSettled([
        closingTerminals,
        ...ids.map((id) => parts.previewEngine.stop(id)),
        ...ids.map((id) => parts.warm.stop(id)),
      ]);
      for (const result of results) {
        if (result.status === 'rejected')
          service.logger.warn({ host: hostName, err: result.reason }, 'could not end what used the host');
      }
    },
    countIdeas: async (hostName) => {
      try {
        return (await (await service.hosts.store(hostName)).list()).length;
      } catch {
        return index.idsOn(hostName).length;
      }
    },
  };
}
