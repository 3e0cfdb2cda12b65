import { spentUsd, type IdeaMeta } from '@catalyst/protocol';
import {
  fitsHold,
  type BudgetHold,
  type BudgetReservations,
  type ReserveRequest,
} from './core/budget-reservations.ts';
import { CatalystError } from '../core/catalyst-error.ts';
import type { WarmProcess } from '../runs/run-driver-options.ts';
import type { WarmSessions } from '../runs/warm-sessions.ts';

/**
 * The I/O half of queue/core/budget-reservations.ts (issue 39): a claude process of an idea starts with a cap held
 * against the idea's budget, read from meta.json afresh when a hold ended meanwhile. A run holds its cap until its
 * cost is in meta.json (run-launch.ts), an aside likewise (asides.ts). A warm process holds nothing while it waits
 * (it spends nothing then); the turn that takes it holds the rest of its cap, or, when that is more than the budget
 * leaves now (others spent since it started), it is ended and the turn starts a claude of its own.
 */

/** What the budget leaves by one read of meta.json, and what to say when nothing is left. */
export interface BudgetRead {
  /** Infinity without a budget. */
  leftUsd: number;
  limitUsd?: number | undefined;
  /** The refusal, told what the idea's live processes hold (0: the budget itself is spent). */
  refusal: (heldUsd: number) => string;
}

/** Reads that a hold ending keeps making stale are given up after this many (an idea ending many turns at once). */
const MAX_READS = 8;

/**
 * Reads (`read`, which reads meta.json) and holds the cap a new process of the idea gets; BUDGET_EXCEEDED when none
 * is left. `isTakenUp`: the process runs already (its cap unknown): it holds whatever is left, if anything.
 */
export async function holdBudget<T extends { budget: BudgetRead }>(
  budgets: BudgetReservations,
  id: string,
  options: { read: () => Promise<T>; isTakenUp?: boolean },
): Promise<T & { hold: BudgetHold }> {
  for (let reads = 0; reads < MAX_READS; reads += 1) {
    const mark = budgets.mark(id);
    const input = await options.read();
    const request: ReserveRequest = { mark, leftUsd: input.budget.leftUsd, limitUsd: input.budget.limitUsd };
    const outcome = budgets.reserve(id, request);
    if (outcome.kind === 'held') return { ...input, hold: outcome.hold };
    if (outcome.kind === 'spent') {
      if (options.isTakenUp === true) return { ...input, hold: NO_HOLD };
      throw new CatalystError('BUDGET_EXCEEDED', input.budget.refusal(outcome.heldUsd));
    }
  }
  // A run that runs already is never refused for this: it holds nothing rather than fail.
  if (options.isTakenUp === true) return { ...(await options.read()), hold: NO_HOLD };
  throw new CatalystError(
    'BUDGET_EXCEEDED',
    'What this idea has spent kept changing while its budget was read; try again.',
  );
}

const NO_HOLD: BudgetHold = { capUsd: 0, shrinkTo: () => undefined, release: () => undefined };

/** The idea's budget and the caller's own cap (an autopilot's, a run's maxBudgetUsd), as holdBudget reads them. */
export function budgetOf(meta: IdeaMeta, cap: { key: string; remainingUsd: number } | undefined) {
  const spent = spentUsd(meta);
  const leftUsd = meta.budgetUsd === undefined ? Number.POSITIVE_INFINITY : meta.budgetUsd - spent;
  const read: BudgetRead = {
    leftUsd,
    limitUsd: cap?.remainingUsd,
    refusal: (heldUsd) =>
      cap === undefined || leftUsd - heldUsd <= cap.remainingUsd
        ? ideaRefusal({ meta, heldUsd, what: 'run it again' })
        : 'The autopilot has spent its budget (maxBudgetUsd).',
  };
  // Names the budget a warm process serves (session-spec.ts, warmKeyOf); none when neither is set.
  const key =
    meta.budgetUsd === undefined && cap === undefined
      ? undefined
      : `${String(meta.budgetUsd ?? '-')}/${cap?.key ?? '-'}`;
  return { ...read, key };
}

/** Why the idea may start no claude now: its budget is spent, or held by the ones running. */
export function ideaRefusal(input: { meta: IdeaMeta; heldUsd: number; what: string }): string {
  const { meta, heldUsd, what } = input;
  const spent = `This idea has spent $${spentUsd(meta).toFixed(4)} of its $${String(meta.budgetUsd)} budget`;
  if (heldUsd <= 0) return `${spent}. Raise or remove its budget to ${what}.`;
  const held = Number.isFinite(heldUsd) ? `$${heldUsd.toFixed(4)}` : 'all that is left';
  return (
    `${spent}, and its claude processes running now (a run, asides) may still spend ${held}: nothing is left ` +
    `for another. Try again once they end, or raise its budget.`
  );
}

/**
 * The idea's warm process for a turn that holds `hold`, or none: one whose rest (its cap less what it cost) is more
 * than the hold is ended first, and the hold shrinks to the rest of one that fits.
 */
export async function takeFittingWarm(
  context: { warm: WarmSessions; budgets: BudgetReservations },
  request: { id: string; key: string; hold: BudgetHold },
): Promise<WarmProcess | undefined> {
  const { id, key, hold } = request;
  const warm = await context.warm.take(id, key);
  if (warm === undefined) return undefined;
  const capUsd = context.budgets.capOfProcess(warm.process);
  if (fitsHold({ capUsd, costUsd: warm.costBaseUsd }, hold.capUsd)) {
    if (capUsd !== undefined) hold.shrinkTo(capUsd - warm.costBaseUsd);
    return warm;
  }
  context.warm.retire(id, warm);
  await context.warm.ended(id);
  return undefined;
}

/** The session with its cap (`--max-budget-usd`), when it has a budget. */
export function withCap<T extends object>(session: T, key: string | undefined, capUsd: number) {
  return key === undefined || !Number.isFinite(capUsd)
    ? session
    : { ...session, budget: { key, remainingUsd: capUsd } };
}
