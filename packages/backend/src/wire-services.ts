import { ActiveRuns } from './runs/active-runs.ts';
import { BudgetReservations } from './queue/core/budget-reservations.ts';
import { Asides } from './asides/asides.ts';
import { autopilotIdeaMeta } from './queue/autopilot-idea-meta.ts';
import { Autopilots } from './queue/autopilots.ts';
import { AutopilotsCapability } from './queue/autopilots-capability.ts';
import { Checkpoints } from './checkpoints/checkpoints.ts';
import { FilesCapability } from './files/files-capability.ts';
import { hostUsersOf } from './hosts/host-holds.ts';
import { HostsCapability } from './hosts/hosts-capability.ts';
import { createLocalSshConfigSources } from './host/ssh/config/ssh-config-files.ts';
import { IdeaOwners } from './runs/idea-owners.ts';
import { IdeaHistories, type IdeaHistoriesOptions } from './ideas/idea-histories.ts';
import { locateIdea } from './ideas/idea-lookup.ts';
import { IdeasCapability } from './ideas/ideas-capability.ts';
import { LiveSubscribers } from './runs/live-subscribers.ts';
import { Previews } from './previews/previews.ts';
import { PreviewsCapability } from './previews/previews-capability.ts';
import { ProjectFiles } from './files/project-files.ts';
import { Reviews } from './checkpoints/reviews.ts';
import { RunsCapability } from './runs/runs-capability.ts';
import {
  shutdownServices,
  stopAllOfIdea,
  takeUpServices,
  type ServiceParts,
} from './service/service-lifecycle.ts';
import type { ServiceOptions, WiredServices } from './service/service-options.ts';
import { Terminals } from './terminals/terminals.ts';
import { DEFAULT_WARM_PER_HOST, WarmSessions } from './runs/warm-sessions.ts';
import type { ServiceShared } from './service/service-shared.ts';

/**
 * The composition root's wiring of the service, capability by capability (service/ports.ts): what they share
 * (service-shared.ts: the ideas' owners, histories and live subscribers, the one run per idea, the budgets) is
 * made here once and handed to each part, which takes what it uses; nothing else holds the whole service.
 */

export function wireServices(options: ServiceOptions): WiredServices {
  const { hosts, logger } = options;
  const active = new ActiveRuns();
  // The parts below call one another only once a request comes, by then all of them exist.
  const owners: IdeaOwners = new IdeaOwners(active, () => ({ runs, autopilots, asides }));
  const locate = (id: string) => locateIdea(options, id);
  const takeUp: IdeaHistoriesOptions['takeUp'] = (id, history) => (run) => runs.takeUp(id, history, run);
  const histories = new IdeaHistories({ options, hosts, logger, locate, owners, takeUp });
  const shared: ServiceShared = {
    options,
    hosts,
    logger,
    locate,
    active,
    owners,
    histories,
    live: new LiveSubscribers(),
    budgets: new BudgetReservations(),
  };
  const warm = new WarmSessions({
    perHost: options.warmPerHost ?? DEFAULT_WARM_PER_HOST,
    maxTurnMs: options.maxRunMs,
    logger,
  });
  const checkpoints = new Checkpoints(shared);
  const previewEngine = new Previews({ ...shared, ...options.previews });
  const release = (id: string) => {
    active.release(id);
    histories.evictIdle();
  };
  const runs: RunsCapability = new RunsCapability({
    ...shared,
    launching: { ...shared, warm, checkpoints, release },
  });
  const autopilots: Autopilots = new Autopilots({
    launch: (id, mode, message, overrides) => runs.launch(id, mode, message, overrides),
    history: (id) => histories.get(id),
    activeRun: (id) => active.get(id),
    whenFree: (id) => active.whenFree(id),
    ...autopilotIdeaMeta(hosts, locate),
    logger,
  });
  const asides: Asides = new Asides(shared);
  const terminals = new Terminals(shared);
  const hostsCapability = new HostsCapability({
    registry: hosts,
    ...options.appHosts,
    sources: () => createLocalSshConfigSources(process.env),
    ...hostUsersOf(options, { active, autopilots, asides, terminals, warm, previewEngine }),
    logger,
  });
  const files = new ProjectFiles({ ...shared, checkpoints });
  const autopilotControl = new AutopilotsCapability({ autopilots, active, hosts, logger });
  const parts: ServiceParts = {
    ...shared,
    autopilots,
    autopilotControl,
    asides,
    warm,
    runs,
    previewEngine,
    terminals,
    hostsCapability,
  };
  return {
    ideas: new IdeasCapability({ ...shared, runs, autopilots, stopAllOf: (id) => stopAllOfIdea(parts, id) }),
    runs,
    terminals,
    yieldRunChannel: (hostName) => {
      warm.yieldOne(hostName);
    },
    autopilots: autopilotControl,
    files: new FilesCapability({ ...shared, checkpoints, files, previews: previewEngine }),
    reviews: new Reviews({ ...shared, checkpoints, files }),
    previews: new PreviewsCapability(previewEngine, locate),
    hosts: hostsCapability,
    asides,
    takeUp: () => takeUpServices(parts, options.appHosts.records),
    shutdown: (closing = {}) => shutdownServices(parts, closing.keepRuns === true),
  };
}
