import type { Logger } from 'pino';
import type { IdeaMeta } from '@catalyst/protocol';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { IdeaHistories } from '../ideas/idea-histories.ts';
import type { BudgetReservations } from '../queue/core/budget-reservations.ts';
import type { ActiveRuns } from '../runs/active-runs.ts';
import type { IdeaOwners } from '../runs/idea-owners.ts';
import type { LiveSubscribers } from '../runs/live-subscribers.ts';
import type { ServiceOptions } from './service-options.ts';

/**
 * What the service's parts share, made once by the composition root (wire-services.ts): each part's options take
 * the members it uses (`Pick<ServiceShared, …>`), so the root hands the same object to each.
 */
export interface ServiceShared {
  options: ServiceOptions;
  hosts: HostRegistry;
  logger: Logger;
  /** The idea's host and meta.json (IDEA_NOT_FOUND, HOST_UNAVAILABLE otherwise). */
  locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>;
  /** The one run per idea: a run's place, a delete's, a restore's. */
  active: ActiveRuns;
  /** What each idea is doing, and the way a person's message reaches it. */
  owners: IdeaOwners;
  histories: IdeaHistories;
  /** The live-only frames' subscribers, per idea. */
  live: LiveSubscribers;
  /** What the idea's claude processes hold of its budget: runs and asides alike (issue 39). */
  budgets: BudgetReservations;
}
