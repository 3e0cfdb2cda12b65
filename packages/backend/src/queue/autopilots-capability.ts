import type { Logger } from 'pino';
import type {
  AddToQueueBody,
  AutopilotView,
  StartAutopilotBody,
  UpdateQueuedStepBody,
} from '@catalyst/protocol';
import { ideaOfAutopilotId } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { checkIdeaId } from '../ideas/idea-store.ts';
import type { ActiveRuns } from '../runs/active-runs.ts';
import type { Autopilots } from './autopilots.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { AutopilotsPort } from '../service/ports.ts';

export interface AutopilotsCapabilityOptions {
  autopilots: Autopilots;
  active: ActiveRuns;
  hosts: HostRegistry;
  logger: Logger;
}

/**
 * Autopilots (AutopilotsPort, issue 12) over the engine that drives their steps (autopilots.ts): an autopilot is
 * found by its id, which names its idea; and, at start, the autopilots an earlier Catalyst left running go on.
 */
export class AutopilotsCapability implements AutopilotsPort {
  readonly #options: AutopilotsCapabilityOptions;

  constructor(options: AutopilotsCapabilityOptions) {
    this.#options = options;
  }

  startAutopilot(id: string, body: StartAutopilotBody): Promise<AutopilotView> {
    checkIdeaId(id);
    this.#options.active.refuseWhenStopping();
    return this.#options.autopilots.start(id, body);
  }

  latestAutopilot(id: string): Promise<AutopilotView | null> {
    checkIdeaId(id);
    return this.#options.autopilots.latest(id);
  }

  getAutopilot(autopilotId: string): Promise<AutopilotView> {
    return this.#onAutopilot(autopilotId, (id) => this.#options.autopilots.get(id, autopilotId));
  }

  cancelAutopilot(autopilotId: string): Promise<AutopilotView> {
    return this.#onAutopilot(autopilotId, (id) => this.#options.autopilots.cancel(id, autopilotId));
  }

  async queue(id: string): Promise<AutopilotView | null> {
    checkIdeaId(id);
    return this.#options.autopilots.queue(id);
  }

  addToQueue(id: string, body: AddToQueueBody): Promise<AutopilotView> {
    checkIdeaId(id);
    this.#options.active.refuseWhenStopping();
    return this.#options.autopilots.add(id, body);
  }

  updateQueuedStep(id: string, stepId: string, body: UpdateQueuedStepBody): Promise<AutopilotView> {
    checkIdeaId(id);
    return this.#options.autopilots.updateStep(id, stepId, body);
  }

  removeQueuedStep(id: string, stepId: string): Promise<AutopilotView> {
    checkIdeaId(id);
    return this.#options.autopilots.removeStep(id, stepId);
  }

  sendQueuedStepNow(id: string, stepId: string): Promise<AutopilotView> {
    checkIdeaId(id);
    return this.#options.autopilots.sendStepNow(id, stepId);
  }

  setQueueBudget(id: string, maxBudgetUsd: number | null): Promise<AutopilotView> {
    checkIdeaId(id);
    return this.#options.autopilots.setBudget(id, maxBudgetUsd);
  }

  resumeQueue(id: string, options: { oneMoreStep: boolean }): Promise<AutopilotView> {
    checkIdeaId(id);
    return this.#options.autopilots.goOn(id, options);
  }

  clearQueue(id: string): Promise<AutopilotView | null> {
    checkIdeaId(id);
    return this.#options.autopilots.clear(id);
  }

  async #onAutopilot(
    autopilotId: string,
    use: (id: string) => Promise<AutopilotView>,
  ): Promise<AutopilotView> {
    const id = ideaOfAutopilotId(autopilotId);
    const notFound = new CatalystError(
      'AUTOPILOT_NOT_FOUND',
      `There is no autopilot ${autopilotId.slice(0, 100)}.`,
    );
    if (id === undefined) throw notFound;
    try {
      return await use(id);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'IDEA_NOT_FOUND') throw notFound;
      throw error;
    }
  }

  /**
   * At start, once the runs are taken up: goes on with the autopilots an earlier Catalyst left running (their
   * ideas' meta.json names them). A host that cannot be reached is logged and skipped. Never rejects.
   */
  async resumeLeftRunning(): Promise<void> {
    const { hosts, logger, autopilots } = this.#options;
    await Promise.all(
      hosts.all().map(async ({ name }) => {
        try {
          const listing = await (await hosts.store(name)).list();
          for (const { id, meta } of listing) {
            if (meta?.autopilotId === undefined) continue;
            await autopilots.resume(id, meta.autopilotId).catch((error: unknown) => {
              logger.error({ ideaId: id, err: error }, 'could not go on with an autopilot');
            });
          }
        } catch (error) {
          // As the start-up sweep: a stop right after a start closes the hosts under it.
          if (!hosts.isClosed)
            logger.warn({ host: name, err: error }, 'could not look for autopilots to go on with');
        }
      }),
    );
  }
}
