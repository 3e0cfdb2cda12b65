import { floorToMicroUsd, MIN_CAP_USD } from '../../core/claude-command.ts';

/**
 * What the live claude processes of an idea may still spend (issue 39). The CLI bounds a process's cost with
 * `--max-budget-usd`, fixed when it starts; a run, its asides and an autopilot's step each start their own. Each
 * start here holds its cap against the idea's budget, so the caps of the processes spending at once never add up
 * past what the budget leaves: a start gets what the budget leaves (meta.json's spending) less what the others hold,
 * or nothing (BUDGET_EXCEEDED). A hold ends once its process's cost is in meta.json.
 *
 * In memory, per Catalyst: a restarted one holds for a run it takes up everything the budget leaves (its cap, set by
 * the Catalyst before, is unknown). Pure: no I/O, no clock.
 */

export interface BudgetHold {
  /** The cap the process starts with (Infinity when neither the idea nor the caller has a budget). */
  readonly capUsd: number;
  /** The process may spend only this much (a warm process's rest): the difference is free for others at once. */
  shrinkTo(usd: number): void;
  /** The process's cost is in meta.json (or it never started): its hold ends. Idempotent. */
  release(): void;
}

export interface ReserveRequest {
  /** From `mark()`, taken before meta.json was read for `leftUsd`. */
  mark: number;
  /** What the idea's budget leaves by that read (Infinity without a budget). */
  leftUsd: number;
  /** A cap of the caller's own besides the idea's (an autopilot's, a run's maxBudgetUsd). */
  limitUsd?: number | undefined;
}

export type ReserveOutcome =
  | { kind: 'held'; hold: BudgetHold }
  /** A hold ended since the mark: its cost may have reached meta.json after the read; read again. */
  | { kind: 'stale' }
  /** Nothing is left for another process; `heldUsd` is what the live ones hold. */
  | { kind: 'spent'; heldUsd: number };

export class BudgetReservations {
  readonly #held = new Map<string, Set<{ usd: number }>>();
  /** Per idea, the holds that ended: a read of its meta.json before one ended may miss that one's cost. */
  readonly #ended = new Map<string, number>();
  /** The caps of the warm processes of this Catalyst, fixed when each started. */
  readonly #caps = new WeakMap<object, number>();

  mark(ideaId: string): number {
    return this.#ended.get(ideaId) ?? 0;
  }

  /** What the idea's live processes hold now. */
  heldUsd(ideaId: string): number {
    let sum = 0;
    for (const hold of this.#held.get(ideaId) ?? []) sum += hold.usd;
    return sum;
  }

  /** The cap for what the idea may spend now (`capOf`), and that cap held until `release`. */
  reserve(ideaId: string, request: ReserveRequest): ReserveOutcome {
    // Without a budget what was spent does not matter: a read is never stale then.
    const isBudgeted = request.leftUsd !== Number.POSITIVE_INFINITY;
    if (isBudgeted && request.mark !== this.mark(ideaId)) return { kind: 'stale' };
    const heldUsd = this.heldUsd(ideaId);
    const capUsd = capOf({ leftUsd: request.leftUsd, heldUsd, limitUsd: request.limitUsd });
    if (capUsd === undefined) return { kind: 'spent', heldUsd };
    return { kind: 'held', hold: this.#hold(ideaId, capUsd) };
  }

  /** A process started with `capUsd` on its command line: it may take a later turn (`capOfProcess`). */
  noteCap(process: object, capUsd: number): void {
    this.#caps.set(process, capUsd);
  }

  capOfProcess(process: object): number | undefined {
    return this.#caps.get(process);
  }

  #hold(ideaId: string, capUsd: number): BudgetHold {
    const entry = { usd: capUsd };
    const holds = this.#held.get(ideaId) ?? new Set();
    holds.add(entry);
    this.#held.set(ideaId, holds);
    let isHeld = true;
    return {
      capUsd,
      shrinkTo: (usd) => {
        entry.usd = Math.min(entry.usd, Math.max(0, usd));
      },
      release: () => {
        if (!isHeld) return;
        isHeld = false;
        holds.delete(entry);
        if (holds.size === 0 && this.#held.get(ideaId) === holds) this.#held.delete(ideaId);
        this.#ended.set(ideaId, this.mark(ideaId) + 1);
      },
    };
  }
}

/**
 * The cap of a process that starts now: what the budget leaves less what the others hold, within the caller's own
 * limit, rounded down to the flag's precision; undefined when that is below MIN_CAP_USD. An unbounded process (no
 * budget when it started) holds Infinity, so a budget set meanwhile leaves nothing until it ends.
 */
export function capOf(input: {
  leftUsd: number;
  heldUsd: number;
  limitUsd?: number | undefined;
}): number | undefined {
  const ideaUsd = input.leftUsd === Number.POSITIVE_INFINITY ? input.leftUsd : input.leftUsd - input.heldUsd;
  const usd = Math.min(ideaUsd, input.limitUsd ?? Number.POSITIVE_INFINITY);
  if (usd === Number.POSITIVE_INFINITY) return usd;
  const floored = floorToMicroUsd(usd);
  return floored >= MIN_CAP_USD ? floored : undefined;
}

/**
 * Whether a warm process (its cap, what it has cost so far) fits a turn's hold: it may spend no more than the hold.
 * One with no known cap fits only an unbounded hold.
 */
export function fitsHold(process: { capUsd: number | undefined; costUsd: number }, holdUsd: number): boolean {
  if (holdUsd === Number.POSITIVE_INFINITY) return true;
  if (process.capUsd === undefined) return false;
  return process.capUsd - process.costUsd <= holdUsd + 1e-9;
}
