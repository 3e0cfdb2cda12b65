import type { CreateIdeaBody, IdeaMeta, IdeaView, RelayEvent, UpdateIdeaBody } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { IdeaHistory } from './event-history.ts';
import type { ActiveRuns } from '../runs/active-runs.ts';
import { hostHolding, locateIdea } from './idea-lookup.ts';
import { applyUpdate, messageOf, toUnavailable } from './idea-meta-changes.ts';
import type { IdeaListener, IdeasPort, IdeaSubscription } from '../service/ports.ts';
import * as routing from '../runs/prompt-routing.ts';
import { deletingClaim } from '../runs/run-claim.ts';
import type { ServiceShared } from '../service/service-shared.ts';
import type { RunsCapability } from '../runs/runs-capability.ts';
import type { Autopilots } from '../queue/autopilots.ts';

/**
 * The shared parts, with the options' idea index and this Catalyst's id (server/catalyst-id-file.ts: new ideas are
 * signed with it; without one, none are); and what other parts do for an idea.
 */
export type IdeasCapabilityOptions = Pick<
  ServiceShared,
  'options' | 'hosts' | 'logger' | 'active' | 'histories' | 'live'
> & {
  /** An idea opened with no run: its session is started ahead of the first turn. */
  runs: Pick<RunsCapability, 'prewarm'>;
  /** The idea's budget changed: a queue paused by it may go on. */
  autopilots: Pick<Autopilots, 'ideaBudgetChanged'>;
  /** Stops what the idea has going besides a run (its waiting claude, its preview) before its folder goes. */
  stopAllOf: (id: string) => Promise<void>;
};

/**
 * Ideas (IdeasPort): the list across hosts, one idea, its meta.json, its deletion, and its history read or
 * followed (replayed, then live).
 */
export class IdeasCapability implements IdeasPort {
  readonly #options: IdeasCapabilityOptions;
  readonly #active: ActiveRuns;

  constructor(options: IdeasCapabilityOptions) {
    this.#options = options;
    this.#active = options.active;
  }

  async listIdeas(): Promise<IdeaView[]> {
    const perHost = await Promise.all(
      this.#options.hosts.all().map((registered) => this.#listHost(registered.name)),
    );
    return perHost.flat().sort((a, b) => (b.meta?.updatedAt ?? '').localeCompare(a.meta?.updatedAt ?? ''));
  }

  async getIdea(id: string): Promise<IdeaView> {
    const { host, meta } = await this.#locate(id);
    return { ...this.#view(id, host, meta), lastSeq: (await this.#history(id)).newestEventSeq };
  }

  async createIdea(body: CreateIdeaBody): Promise<IdeaView> {
    // HOST_NOT_FOUND for a name not configured; past that, a host that fails is unavailable, in its own words.
    const host = this.#options.hosts.get(body.host ?? this.#options.hosts.defaultName).name;
    let meta: IdeaMeta;
    try {
      const store = await this.#options.hosts.store(host);
      const { catalystId } = this.#options.options;
      meta = await store.create({
        title: body.title,
        description: body.description,
        ...(catalystId === undefined ? {} : { madeBy: catalystId }),
      });
    } catch (error) {
      throw toUnavailable(error, host);
    }
    await this.#options.options.index.set(meta.id, host);
    return this.#view(meta.id, host, meta);
  }

  async updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView> {
    const { host } = await this.#locate(id);
    const store = await this.#options.hosts.store(host);
    const meta = await store.update(id, (current) => applyUpdate(current, body));
    if (body.budgetUsd !== undefined) {
      this.#options.autopilots.ideaBudgetChanged(id).catch((error: unknown) => {
        this.#options.logger.warn(
          { ideaId: id, err: error },
          'could not go on with a queue paused by its budget',
        );
      });
    }
    return this.#view(id, host, meta);
  }

  async deleteIdea(id: string): Promise<void> {
    // Not locateIdea: a folder whose meta.json is missing or corrupt is listed, and must be deletable (issue 16, item 8).
    const host = await hostHolding(this.#options.options, id);
    if (this.#active.has(id))
      throw new CatalystError('RUN_IN_PROGRESS', 'Stop the running task before deleting the idea.');
    // Marked before the first await: a run started meanwhile would work in a folder about to vanish.
    this.#active.hold(id, deletingClaim);
    try {
      // Its waiting claude and its preview first: nothing of the idea may run in a folder about to vanish.
      await this.#options.stopAllOf(id);
      const history = this.#options.histories.take(id);
      this.#options.live.drop(id);
      await (await history)?.close();
      const { leftOver } = await (await this.#options.hosts.store(host)).delete(id);
      // The idea is deleted (out of the listing); its files wait in the trash for the next delete or start-up.
      if (leftOver !== undefined)
        this.#options.logger.warn(
          { err: leftOver, ideaId: id, host },
          'a deleted idea left files in the trash',
        );
      await this.#options.options.index.delete(id);
    } finally {
      this.#active.release(id);
    }
  }

  async history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]> {
    await this.#locate(id);
    return (await this.#history(id)).since(sinceSeq, limit);
  }

  async lastSeq(id: string): Promise<number> {
    await this.#locate(id);
    return (await this.#history(id)).lastSeq;
  }

  async subscribe(id: string, sinceSeq: number, listener: IdeaListener): Promise<IdeaSubscription> {
    await this.#locate(id);
    const { lastSeq, unsubscribe } = await (await this.#history(id)).subscribe(sinceSeq, listener);
    // Joined in the same tick as the history's live events: from here on both arrive in stdout order.
    const leaveLive = this.#options.live.add(id, listener);
    const pending = routing.pendingOf(this.#active.get(id)?.prompts);
    if (!this.#active.has(id) && !this.#active.isStopping()) this.#options.runs.prewarm(id);
    return {
      lastSeq,
      running: this.#active.has(id),
      pending,
      unsubscribe: () => {
        unsubscribe();
        leaveLive();
        this.#options.histories.evictIdle();
      },
    };
  }

  async #listHost(name: string): Promise<IdeaView[]> {
    try {
      const listing = await (await this.#options.hosts.store(name)).list();
      await this.#options.options.index.setHostIdeas(
        name,
        listing.map((entry) => entry.id),
      );
      return listing.map((entry) => ({
        id: entry.id,
        host: name,
        available: entry.meta !== undefined,
        running: this.#active.has(entry.id),
        ...(entry.meta ? { meta: entry.meta } : {}),
        ...(entry.meta && this.#isMadeElsewhere(entry.meta) ? { madeElsewhere: true as const } : {}),
        ...(entry.error === undefined ? {} : { error: entry.error }),
        ...(entry.isBroken === true ? { broken: true as const } : {}),
      }));
    } catch (error) {
      const reason = `Host ${name} is unavailable: ${messageOf(error)}`;
      return this.#options.options.index
        .idsOn(name)
        .map((id) => ({ id, host: name, available: false, running: false, error: reason }));
    }
  }

  #locate(id: string): Promise<{ host: string; meta: IdeaMeta }> {
    return locateIdea(this.#options.options, id);
  }

  #history(id: string): Promise<IdeaHistory> {
    return this.#options.histories.get(id);
  }

  #view(id: string, host: string, meta: IdeaMeta): IdeaView {
    const view: IdeaView = { id, host, available: true, running: this.#active.has(id), meta };
    return this.#isMadeElsewhere(meta) ? { ...view, madeElsewhere: true } : view;
  }

  /** Signed by another Catalyst; an unsigned idea (made before ideas were signed) is every Catalyst's own. */
  #isMadeElsewhere(meta: IdeaMeta): boolean {
    const { catalystId } = this.#options.options;
    return catalystId !== undefined && meta.madeBy !== undefined && meta.madeBy !== catalystId;
  }
}
