import type { ActiveRuns } from './active-runs.ts';
import { deletingClaim } from './run-claim.ts';

/** What IdeaActivity reads: the queue on each idea (autopilots.ts) and its asides (asides.ts). */
export interface ActivitySources {
  active: ActiveRuns;
  /** The queue running on the idea (not paused), if any; and whether one holds it (running or paused). */
  queues: () => { runningOn(id: string): string | undefined; isHolding(id: string): boolean };
  asides: () => { isAsking(id: string): boolean };
}

/**
 * What an idea is doing now, asked here and nowhere else (issue 41, item 1): its place in `active` (a run, or the
 * claim of a start on its way, a restore or a delete: run-claim.ts), the queue or autopilot on it, its asides.
 * Every capability asks this one object whether an idea is busy, instead of each putting the parts together.
 */
export class IdeaActivity {
  readonly #sources: ActivitySources;

  constructor(sources: ActivitySources) {
    this.#sources = sources;
  }

  /** The idea is being deleted: nothing new starts on it. */
  isDeleting(id: string): boolean {
    return this.#sources.active.get(id) === deletingClaim;
  }

  /** The autopilot or queue running on the idea (a paused one lets a person's run go), if any. */
  autopilotOn(id: string): string | undefined {
    return this.#sources.queues().runningOn(id);
  }

  /** A run holds the idea's place, or an autopilot runs on it: a person's run, a restore, a pre-warm wait. */
  isBusy(id: string): boolean {
    return this.#sources.active.has(id) || this.autopilotOn(id) !== undefined;
  }

  /** Something writes to the idea's history now or next: a run, a queue between its steps (paused too), an aside. */
  isWriting(id: string): boolean {
    return (
      this.#sources.active.has(id) ||
      this.#sources.queues().isHolding(id) ||
      this.#sources.asides().isAsking(id)
    );
  }

  /** The tag of the idea's running run (its session on the host): the ports it listens on are the idea's. */
  runTagOf(id: string): string | undefined {
    return this.#sources.active.get(id)?.sessionId;
  }
}
