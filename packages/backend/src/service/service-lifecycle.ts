import type { Logger } from 'pino';
import type { ActiveRuns } from '../runs/active-runs.ts';
import type { Asides } from '../asides/asides.ts';
import type { Autopilots } from '../queue/autopilots.ts';
import type { AutopilotsCapability } from '../queue/autopilots-capability.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { HostsCapability } from '../hosts/hosts-capability.ts';
import type { IdeaHistories } from '../ideas/idea-histories.ts';
import type { Previews } from '../previews/previews.ts';
import type { RunsCapability } from '../runs/runs-capability.ts';
import { takeUpJobs } from '../runs/job-takeup.ts';
import type { Terminals } from '../terminals/terminals.ts';
import type { WarmSessions } from '../runs/warm-sessions.ts';

// The service's whole-life steps that reach across its capabilities: taking up what an earlier Catalyst left,
// ending all that an idea has going when it is deleted, and shutting down.

/** What the steps below act on: the parts wire-services.ts made. */
export interface ServiceParts {
  hosts: HostRegistry;
  logger: Logger;
  active: ActiveRuns;
  autopilots: Autopilots;
  autopilotControl: AutopilotsCapability;
  asides: Asides;
  warm: WarmSessions;
  runs: RunsCapability;
  previewEngine: Previews;
  histories: IdeaHistories;
  terminals: Terminals;
  hostsCapability: HostsCapability;
}

/**
 * WiredServices.takeUp: the runs an earlier Catalyst left going in sessions on the hosts are taken up, then the
 * autopilots it left running go on; then the hosts added in the app are checked.
 */
export async function takeUpServices(
  parts: ServiceParts,
  appHosts: readonly { name: string }[],
): Promise<void> {
  const takingUp = (async () => {
    await takeUpJobs(parts);
    await parts.autopilotControl.resumeLeftRunning();
  })();
  parts.autopilots.takingUp(takingUp);
  await takingUp;
  parts.hostsCapability.checkSoon(appHosts.map((host) => host.name));
}

/** An idea being deleted: its queue, asides, warm session, run state, preview and terminals end. */
export async function stopAllOfIdea(parts: ServiceParts, id: string): Promise<void> {
  await parts.autopilots.forget(id);
  await parts.asides.stopAllOf(id);
  await parts.warm.stop(id);
  parts.runs.forget(id);
  await parts.previewEngine.forget(id);
  await parts.terminals.closeAllOf(id);
}

/** WiredServices.shutdown: nothing new starts; runs are let go of (`keepRuns`) or cancelled; then the rest ends. */
export async function shutdownServices(parts: ServiceParts, keepRuns: boolean): Promise<void> {
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
