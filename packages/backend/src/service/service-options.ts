import type { RelayEvent } from '@catalyst/protocol';
import type { Logger } from 'pino';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { HostsCapabilityOptions } from '../hosts/hosts-capability.ts';
import type { IdeaIndex } from '../ideas/idea-index.ts';
import type { Services } from './ports.ts';
import type { StartPreviewServer } from '../previews/preview-server.ts';
import type { QaSettings } from '../runs/prompt-routing.ts';
import type { Terminals } from '../terminals/terminals.ts';

// What the composition root (wire-services.ts) is given, and what it hands back.

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
    /** Starts a preview's own HTTP server (previews/edge/preview-proxy.ts): the service starts none itself. */
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
