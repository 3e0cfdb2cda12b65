import { spentUsd, type RelayEvent } from '@catalyst/protocol';
import type { Logger } from 'pino';
import { ActiveRuns } from './service/active-runs.ts';
import { BudgetReservations } from './core/budget-reservations.ts';
import { Asides, DEFAULT_ASIDE_TIMEOUT_MS } from './service/asides.ts';
import { Autopilots } from './service/autopilots.ts';
import { AutopilotsCapability } from './service/autopilots-capability.ts';
import { Checkpoints } from './service/checkpoints.ts';
import { FilesCapability } from './service/files-capability.ts';
import type { HostRegistry } from './service/host-registry.ts';
import { hostUsersOf } from './service/host-holds.ts';
import { HostsCapability, type HostsCapabilityOptions } from './service/hosts-capability.ts';
import { createLocalSshConfigSources } from './host/ssh/config/ssh-config-files.ts';
import { IdeaActivity } from './service/idea-activity.ts';
import { IdeaHistories } from './service/idea-histories.ts';
import type { IdeaIndex } from './service/idea-index.ts';
import { locateIdea } from './service/idea-lookup.ts';
import { IdeasCapability } from './service/ideas-capability.ts';
import { LiveSubscribers } from './service/live-subscribers.ts';
import type { Services } from './service/ports.ts';
import type { StartPreviewServer } from './service/preview-server.ts';
import { DEFAULT_PREVIEW_IDLE_MS, Previews } from './service/previews.ts';
import { PreviewsCapability } from './service/previews-capability.ts';
import { ProjectFiles } from './service/project-files.ts';
import { DEFAULT_QA, type QaSettings } from './service/prompt-routing.ts';
import type { RunLaunchContext } from './service/run-launch.ts';
import { ReviewStore } from './service/review-store.ts';
import { Reviews } from './service/reviews.ts';
import { RunsCapability } from './service/runs-capability.ts';
import { takeUpSessions } from './service/session-takeup.ts';
import { Terminals } from './service/terminals.ts';
import { DEFAULT_WARM_PER_HOST, WarmSessions } from './service/warm-sessions.ts';

/**
 * The composition root's wiring of the service, capability by capability (service/ports.ts): what they share
 * (the ideas' histories and live subscribers, the one run per idea, the warm sessions) is made here once and
 * handed to each capability that needs it; nothing else holds the whole service.
 */

export interface ServiceOptions {
  hosts: HostRegistry;
  /** This Catalyst's id: the ideas it makes are signed with it (issue 40, item 8). */
  catalystId?: string;
  index: IdeaIndex;
  logger: Logger;
  inactivityTimeoutMs: number;
  maxRunMs: number;
  /** CATALYST_DETACHED_LIMIT_MS (run-launch.ts). */
  detachedLimitMs?: number;
  /** CATALYST_LEASE_MS (run-launch.ts). */
  leaseMs?: number;
  /** CATALYST_WARM_IDLE_MS: how long a session waits for the idea's next turn. */
  warmIdleMs?: number;
  /** CATALYST_WARM_PER_HOST: how many sessions wait per host (0: none; every turn starts its own process). */
  warmPerHost?: number;
  qa?: QaSettings;
  /** How long a checkpoint's git may take (checkpoints.ts). */
  checkpointTimeoutMs?: number;
  /** Event histories kept open with no subscriber and no run (history-cache.ts). */
  maxIdleHistories?: number;
  /** Every idea's new events, as subscribers see them (push notifications, issue 29). */
  onEvent?: (ideaId: string, event: RelayEvent) => void;
  /** The hosts added in the app (issue 28): their file, as read at start, and where confirmed keys go. */
  appHosts: Pick<HostsCapabilityOptions, 'store' | 'records' | 'knownHosts' | 'defaults'>;
  /** Previews (issue 14): where their servers listen, when they stop unused, what Catalyst's token is. */
  previews: {
    bind: string;
    idleMs?: number;
    isCatalystToken: (candidate: string) => boolean;
    /** Starts a preview's own HTTP server (server/preview-proxy.ts): the service starts none itself. */
    startServer: StartPreviewServer;
  };
}

export interface WiredServices extends Services {
  /**
   * At start, in the background: the runs an earlier Catalyst left going in sessions on the hosts are taken up,
   * then the autopilots it left running go on. Never rejects.
   */
  takeUp(): Promise<void>;
  /**
   * Stops accepting runs and flushes every history. The running runs are cancelled, or, with `keepRuns` (a
   * restart, an update), let go of: Claude goes on in its session on the host and the next Catalyst takes it up.
   */
  shutdown(options?: { keepRuns?: boolean }): Promise<void>;
  /** The terminals on the ideas' hosts (issue 31), served by the WebSocket hub at `/ws/terminal`. */
  terminals: Terminals;
  /** A run waits for one of the host's channels: the host's least recently used warm session ends to free one. */
  yieldRunChannel(hostName: string): void;
}

export function wireServices(options: ServiceOptions): WiredServices {
  const { hosts, logger } = options;
  const active = new ActiveRuns();
  const live = new LiveSubscribers();
  const locate = (id: string) => locateIdea(options, id);
  // The capabilities below call one another only once a request comes, by then all of them exist.
  const activity: IdeaActivity = new IdeaActivity({ active, queues: () => autopilots, asides: () => asides });
  const histories: IdeaHistories = new IdeaHistories({
    hosts,
    logger,
    hostOf: async (id) => (await locate(id)).host,
    // An autopilot between two steps keeps its history open too: it writes the next step's events.
    isRunning: (id) => activity.isWriting(id),
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
    runTagOf: (id) => activity.runTagOf(id),
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
    activity,
    warmPerHost: options.warmPerHost,
  });
  const autopilots: Autopilots = new Autopilots({
    launch: (id, mode, message, overrides) => runs.launch(id, mode, message, overrides),
    history: (id) => histories.get(id),
    activeRun: (id) => active.get(id),
    whenFree: (id) => active.whenFree(id),
    ideaBudgetAllows: async (id) => {
      const { host } = await locate(id);
      const meta = await (await hosts.store(host)).get(id);
      return meta.budgetUsd === undefined || spentUsd(meta) < meta.budgetUsd;
    },
    questionPolicyOf: async (id) => {
      const { host } = await locate(id);
      return (await (await hosts.store(host)).get(id)).questionPolicy;
    },
    mark: async (id, autopilotId) => {
      const store = await hosts.store((await locate(id)).host);
      await store.update(id, (meta) => {
        const { autopilotId: _running, ...rest } = meta;
        return autopilotId === undefined ? rest : { ...rest, autopilotId };
      });
    },
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
    isDeleting: (id) => activity.isDeleting(id),
    isStopping: () => active.isStopping(),
    budgets,
  });
  const terminals = new Terminals({
    hosts,
    hostOf: async (id) => (await locate(id)).host,
    isDeleting: (id) => activity.isDeleting(id),
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
  const autopilotControl = new AutopilotsCapability({
    autopilots,
    active,
    activity,
    hosts,
    logger,
    startRun: (id, mode, message) => runs.startRun(id, mode, message),
  });
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
      stopAllOf: async (id) => {
        await autopilots.forget(id);
        await asides.stopAllOf(id);
        await warm.stop(id);
        runs.forget(id);
        await previewEngine.forget(id);
        await terminals.closeAllOf(id);
      },
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
      activity,
      restartPreview: (id) => previewEngine.restartIfRunning(id),
    }),
    reviews: new Reviews({
      store: new ReviewStore({ hosts, locate }),
      checkpoints,
      files: projectFiles,
      histories,
      isDeleting: (id) => activity.isDeleting(id),
      logger,
      locate,
      // As the composer's message: a build now when the idea is idle, queued behind what runs otherwise.
      send: async (id, mode, message) => {
        const sent = await autopilotControl.sendMessage(id, mode, message);
        return 'runId' in sent ? { runId: sent.runId } : {};
      },
    }),
    previews: new PreviewsCapability(previewEngine, locate),
    hosts: hostsCapability,
    asides,
    takeUp: async () => {
      const takingUp = (async () => {
        await takeUpSessions({ hosts, histories, active, warm, logger });
        await autopilotControl.resumeLeftRunning();
      })();
      autopilots.takingUp(takingUp);
      await takingUp;
      hostsCapability.checkSoon(options.appHosts.records.map((record) => record.name));
    },
    shutdown: (closing = {}) =>
      shutdownServices(
        { active, autopilots, asides, warm, previewEngine, histories, terminals },
        closing.keepRuns === true,
      ),
  };
}

/** WiredServices.shutdown: nothing new starts; runs are let go of (`keepRuns`) or cancelled; then the rest ends. */
async function shutdownServices(
  parts: {
    active: ActiveRuns;
    autopilots: Autopilots;
    asides: Asides;
    warm: WarmSessions;
    previewEngine: Previews;
    histories: IdeaHistories;
    terminals: Terminals;
  },
  keepRuns: boolean,
): Promise<void> {
  parts.active.beginStopping();
  const stoppingAutopilots = parts.autopilots.stop({ keepRuns });
  const stoppingAsides = parts.asides.stopAll();
  const stoppingTerminals = parts.terminals.shutdown();
  const going = parts.active.all();
  for (const run of going) {
    if (keepRuns && run.detach !== undefined) run.detach();
    else run.cancel();
  }
  await Promise.allSettled(going.map((run) => run.ended));
  await stoppingAutopilots;
  await stoppingAsides;
  await stoppingTerminals;
  await parts.warm.endAll();
  await parts.previewEngine.stopAll();
  await parts.histories.closeAll();
}
