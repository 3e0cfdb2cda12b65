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
  readonly #freed = new Map<string, (() => void)[]>();
  /** Who waits for an idea's place to be taken (the idea's next message): told on its hold. */
  readonly #taken = new Map<string, Set<() => void>>();
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
    const waiting = this.#taken.get(id) ?? new Set();
    this.#taken.delete(id);
    for (const resolve of waiting) resolve();
  }

  /** Resolves the next time the idea's place is taken; `cancel` lets go of the wait. */
  whenHeld(id: string): { held: Promise<void>; cancel: () => void } {
    let resolve: () => void = () => undefined;
    const held = new Promise<void>((settle) => (resolve = settle));
    const waiting = this.#taken.get(id) ?? new Set();
    waiting.add(resolve);
    this.#taken.set(id, waiting);
    return {
      held,
      cancel: () => {
        waiting.delete(resolve);
        if (waiting.size === 0 && this.#taken.get(id) === waiting) this.#taken.delete(id);
      },
    };
  }

  release(id: string): void {
    this.#runs.delete(id);
    const waiting = this.#freed.get(id) ?? [];
    this.#freed.delete(id);
    for (const resolve of waiting) resolve();
  }

  /** Resolves once the idea's place is free (at once when it is). */
  whenFree(id: string): Promise<void> {
    if (!this.#runs.has(id)) return Promise.resolve();
    return new Promise((resolve) => {
      this.#freed.set(id, [...(this.#freed.get(id) ?? []), resolve]);
    });
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
