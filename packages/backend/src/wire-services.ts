import { ActiveRuns } from './runs/active-runs.ts';
import { BudgetReservations } from './queue/core/budget-reservations.ts';
import { Asides, DEFAULT_ASIDE_TIMEOUT_MS } from './asides/asides.ts';
import { autopilotIdeaMeta } from './queue/autopilot-idea-meta.ts';
import { Autopilots } from './queue/autopilots.ts';
import { AutopilotsCapability } from './queue/autopilots-capability.ts';
import { Checkpoints } from './checkpoints/checkpoints.ts';
import { FilesCapability } from './files/files-capability.ts';
import { hostUsersOf } from './hosts/host-holds.ts';
import { HostsCapability } from './hosts/hosts-capability.ts';
import { createLocalSshConfigSources } from './host/ssh/config/ssh-config-files.ts';
import { IdeaOwners } from './runs/idea-owners.ts';
import { IdeaHistories } from './ideas/idea-histories.ts';
import { locateIdea } from './ideas/idea-lookup.ts';
import { IdeasCapability } from './ideas/ideas-capability.ts';
import { LiveSubscribers } from './runs/live-subscribers.ts';
import { DEFAULT_PREVIEW_IDLE_MS, Previews } from './previews/previews.ts';
import { PreviewsCapability } from './previews/previews-capability.ts';
import { ProjectFiles } from './files/project-files.ts';
import { DEFAULT_QA } from './runs/prompt-routing.ts';
import type { RunLaunchContext } from './runs/run-launch.ts';
import { ReviewStore } from './checkpoints/review-store.ts';
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

/**
 * The composition root's wiring of the service, capability by capability (service/ports.ts): what they share
 * (the ideas' histories and live subscribers, the one run per idea, the warm sessions) is made here once and
 * handed to each capability that needs it; nothing else holds the whole service.
 */

export function wireServices(options: ServiceOptions): WiredServices {
  const { hosts, logger } = options;
  const active = new ActiveRuns();
  const live = new LiveSubscribers();
  const locate = (id: string) => locateIdea(options, id);
  // The capabilities below call one another only once a request comes, by then all of them exist.
  const owners: IdeaOwners = new IdeaOwners({
    active,
    queues: () => autopilots,
    asides: () => asides,
    startRun: (id, mode, message) => runs.startRun(id, mode, message),
    enqueue: (id, mode, message) => autopilots.add(id, { mode, message, sendNow: false }),
  });
  const histories: IdeaHistories = new IdeaHistories({
    hosts,
    logger,
    hostOf: async (id) => (await locate(id)).host,
    // An autopilot between two steps keeps its history open too: it writes the next step's events.
    isRunning: (id) => owners.of(id).isWriting(),
    takeUp: (id, history) => (run) => runs.takeUp(id, history, run),
    maxIdle: options.maxIdleHistories,
    onEvent: options.onEvent,
  });
  const warm = new WarmSessions({
    perHost: options.warmPerHost ?? DEFAULT_WARM_PER_HOST,
    maxTurnMs: options.maxRunMs,
    logger,
  });
  const checkpoints = new Checkpoints({
    hosts,
    logger,
    locate,
    ...(options.checkpointTimeoutMs === undefined ? {} : { timeoutMs: options.checkpointTimeoutMs }),
  });
  const previewEngine = new Previews({
    hosts,
    logger,
    locate,
    runTagOf: (id) => owners.of(id).runTag(),
    bind: options.previews.bind,
    idleMs: options.previews.idleMs ?? DEFAULT_PREVIEW_IDLE_MS,
    isCatalystToken: options.previews.isCatalystToken,
    startServer: options.previews.startServer,
  });
  // What the idea's claude processes hold of its budget: runs and asides alike (issue 39).
  const budgets = new BudgetReservations();
  const launching: RunLaunchContext = {
    options,
    budgets,
    warm,
    checkpoints,
    histories,
    live,
    locate,
    release: (id) => {
      active.release(id);
      histories.evictIdle();
    },
  };
  const runs: RunsCapability = new RunsCapability({
    active,
    launching,
    logger,
    owners,
    warmPerHost: options.warmPerHost,
  });
  const autopilots: Autopilots = new Autopilots({
    launch: (id, mode, message, overrides) => runs.launch(id, mode, message, overrides),
    history: (id) => histories.get(id),
    activeRun: (id) => active.get(id),
    whenFree: (id) => active.whenFree(id),
    ...autopilotIdeaMeta(hosts, locate),
    logger,
  });
  const asides: Asides = new Asides({
    hosts,
    logger,
    histories,
    locate,
    qa: options.qa ?? DEFAULT_QA,
    timeoutMs: DEFAULT_ASIDE_TIMEOUT_MS,
    inactivityMs: options.inactivityTimeoutMs,
    isDeleting: (id) => owners.of(id).isDeleting(),
    isStopping: () => active.isStopping(),
    budgets,
  });
  const terminals = new Terminals({
    hosts,
    hostOf: async (id) => (await locate(id)).host,
    isDeleting: (id) => owners.of(id).isDeleting(),
    logger,
  });
  const hostsCapability = new HostsCapability({
    registry: hosts,
    ...options.appHosts,
    sources: () => createLocalSshConfigSources(process.env),
    ...hostUsersOf(options, { active, autopilots, asides, terminals, warm, previewEngine }),
    logger,
  });
  const projectFiles = new ProjectFiles({ hosts, locate, checkpoints });
  const autopilotControl = new AutopilotsCapability({ autopilots, active, hosts, logger });
  const parts: ServiceParts = {
    hosts,
    logger,
    active,
    autopilots,
    autopilotControl,
    asides,
    warm,
    runs,
    previewEngine,
    histories,
    terminals,
    hostsCapability,
  };
  return {
    ideas: new IdeasCapability({
      hosts,
      index: options.index,
      ...(options.catalystId === undefined ? {} : { catalystId: options.catalystId }),
      logger,
      active,
      histories,
      live,
      prewarm: (id) => {
        runs.prewarm(id);
      },
      onBudgetChanged: (id) => {
        autopilots.ideaBudgetChanged(id).catch((error: unknown) => {
          logger.warn({ ideaId: id, err: error }, 'could not go on with a queue paused by its budget');
        });
      },
      stopAllOf: (id) => stopAllOfIdea(parts, id),
    }),
    runs,
    terminals,
    yieldRunChannel: (hostName) => {
      warm.yieldOne(hostName);
    },
    autopilots: autopilotControl,
    files: new FilesCapability({
      checkpoints,
      files: projectFiles,
      active,
      histories,
      locate,
      owners,
      restartPreview: (id) => previewEngine.restartIfRunning(id),
    }),
    reviews: new Reviews({
      store: new ReviewStore({ hosts, locate }),
      checkpoints,
      files: projectFiles,
      histories,
      isDeleting: (id) => owners.of(id).isDeleting(),
      logger,
      locate,
      // As the composer's message: a build now when the idea is idle, queued behind what runs otherwise.
      send: async (id, mode, message) => {
        const sent = await owners.of(id).send(mode, message);
        return 'runId' in sent ? { runId: sent.runId } : {};
      },
    }),
    previews: new PreviewsCapability(previewEngine, locate),
    hosts: hostsCapability,
    asides,
    takeUp: () =>
      takeUpServices(
        parts,
        options.appHosts.records.map((record) => record.name),
      ),
    shutdown: (closing = {}) => shutdownServices(parts, closing.keepRuns === true),
  };
}
