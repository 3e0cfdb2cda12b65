import type { TimerName } from './core/run-lifecycle.ts';

/** A run's timers, by the lifecycle's names (runs/core/run-lifecycle.ts): one of each at most; `fired` when one is due. */
export class RunTimers {
  readonly #timers = new Map<TimerName, NodeJS.Timeout>();
  readonly #fired: (name: TimerName) => void;

  constructor(fired: (name: TimerName) => void) {
    this.#fired = fired;
  }

  /** Starts `name` for `ms`, in place of one of that name still running. */
  set(name: TimerName, ms: number): void {
    this.clear(name);
    this.#timers.set(
      name,
      setTimeout(() => {
        this.#timers.delete(name);
        this.#fired(name);
      }, ms),
    );
  }

  clear(name: TimerName): void {
    clearTimeout(this.#timers.get(name));
    this.#timers.delete(name);
  }

  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
