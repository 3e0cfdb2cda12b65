import { ideaOfRunId } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { ActiveRun } from './active-run.ts';

/**
 * One run per idea: what each capability asks before it touches an idea's project (a run, a delete, a restore all
 * hold the idea's place here while they work), and whether Catalyst is shutting down. Shared by the capabilities
 * the composition root wires (wire-services.ts); none of them keeps a map of its own.
 */
export class ActiveRuns {
  readonly #runs = new Map<string, ActiveRun>();
  /** Who waits for an idea's place to be free (a queue's next step): told on its release. */
  readonly #freed = new Waiters();
  /** Who waits for an idea's place to be taken (the idea's next message): told on its hold. */
  readonly #taken = new Waiters();
  #isStopping = false;

  has(id: string): boolean {
    return this.#runs.has(id);
  }

  get(id: string): ActiveRun | undefined {
    return this.#runs.get(id);
  }

  /** The idea's place, held until `release`: a run's claim, or a delete's or a restore's (run-claim.ts). */
  hold(id: string, run: ActiveRun): void {
    this.#runs.set(id, run);
    this.#taken.tell(id);
  }

  /** Resolves the next time the idea's place is taken; `cancel` lets go of the wait. */
  whenHeld(id: string): { held: Promise<void>; cancel: () => void } {
    const { told, cancel } = this.#taken.wait(id);
    return { held: told, cancel };
  }

  release(id: string): void {
    this.#runs.delete(id);
    this.#freed.tell(id);
  }

  /** Resolves once the idea's place is free (at once when it is). */
  whenFree(id: string): Promise<void> {
    if (!this.#runs.has(id)) return Promise.resolve();
    return this.#freed.wait(id).told;
  }

  /** The ideas whose place is held. */
  ids(): string[] {
    return [...this.#runs.keys()];
  }

  all(): ActiveRun[] {
    return [...this.#runs.values()];
  }

  /** A method, not a field: it is read again after an await, when shutdown may have begun meanwhile. */
  isStopping(): boolean {
    return this.#isStopping;
  }

  beginStopping(): void {
    this.#isStopping = true;
  }

  /** HOST_UNAVAILABLE once shutdown has begun: nothing new starts then. */
  refuseWhenStopping(): void {
    if (this.#isStopping) throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
  }

  /** RUN_IN_PROGRESS (with the run's id when it is a run) while the idea's place is held. */
  refuseWhenBusy(id: string, message: string): void {
    const busy = this.#runs.get(id);
    if (busy === undefined) return;
    throw new CatalystError('RUN_IN_PROGRESS', message, {
      details: ideaOfRunId(busy.runId) === undefined ? {} : { runId: busy.runId },
    });
  }
}

/** Who waits, per idea, for the next time something happens to it; each told once. */
class Waiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  wait(id: string): { told: Promise<void>; cancel: () => void } {
    let resolve: () => void = () => undefined;
    const told = new Promise<void>((settle) => (resolve = settle));
    const waiting = this.#waiting.get(id) ?? new Set();
    waiting.add(resolve);
    this.#waiting.set(id, waiting);
    return {
      told,
      cancel: () => {
        waiting.delete(resolve);
        if (waiting.size === 0 && this.#waiting.get(id) === waiting) this.#waiting.delete(id);
      },
    };
  }

  tell(id: string): void {
    const waiting = this.#waiting.get(id) ?? new Set();
    this.#waiting.delete(id);
    for (const resolve of waiting) resolve();
  }
}
