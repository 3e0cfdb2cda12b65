import { formatCost } from '../base/format.ts';
import type { CommandResult, RelayEvent, RunOutcomeKind } from '@catalyst/protocol';

type RunEnded = Extract<RelayEvent, { type: 'run:ended' }>;
type RunStarted = Extract<RelayEvent, { type: 'run:started' }>;

export interface RunSummaryInput {
  ended: RunEnded;
  started: RunStarted | undefined;
  result: CommandResult | undefined;
}

export const outcomeWords: Record<RunOutcomeKind, string> = {
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  timed_out: 'Timed out',
  connection_lost: 'Connection lost',
};

/** A cancelled run is the person's choice, and a completed one has nothing to explain. */
const outcomesWithError = new Set<RunOutcomeKind>(['failed', 'timed_out', 'connection_lost']);

/**
 * A run the CLI stopped at its budget is paused, not failed (issue 40): the budget notice (or the queue) offers to
 * raise it and go on, and the line closing the run says the same, in one word, without the CLI's own sentence.
 */
export function isBudgetPause({ ended }: RunSummaryInput): boolean {
  return ended.outcome === 'failed' && ended.error?.code === 'BUDGET_EXCEEDED';
}

/** The look of the line: its outcome's, or "paused" for a budget pause (not a failure's red). */
export function runSummaryTone(input: RunSummaryInput): RunOutcomeKind | 'paused' {
  return isBudgetPause(input) ? 'paused' : input.ended.outcome;
}

/** "Completed · 3.2 s · 2 turns · $0.0123", or "Failed · 1.0 s — <why>": the outcome word always first. */
export function describeRunSummary(input: RunSummaryInput): string {
  const { ended, started, result } = input;
  const parts = [isBudgetPause(input) ? 'Paused at the budget' : outcomeWords[ended.outcome]];
  const durationMs = result?.durationMs ?? measureMs(started, ended);
  if (durationMs !== undefined) parts.push(formatDuration(durationMs));
  if (result !== undefined) {
    parts.push(result.numTurns === 1 ? '1 turn' : `${result.numTurns} turns`);
    parts.push(formatCost(result.costUsd));
  }
  const error = explainedError(input);
  const line = parts.join(' · ');
  return error === undefined ? line : `${line} — ${error}`;
}

/** What the CLI says without credentials ("Not logged in · Please run /login") or with refused ones. */
const NOT_LOGGED_IN = /not logged in/i;
const REFUSED_LOGIN = /invalid api key|please run \/login/i;
const HOW_TO_LOG_IN =
  'as the user Catalyst runs it as (start claude, then type /login), or give it an API key.';

/** A next step for a failure whose fix is outside the page (`/login` cannot be run from here). */
export function describeRunHint(input: RunSummaryInput): string | undefined {
  const error = explainedError(input);
  if (error === undefined) return undefined;
  if (NOT_LOGGED_IN.test(error))
    return `Claude is not logged in on this idea’s host: log in there once ${HOW_TO_LOG_IN}`;
  if (REFUSED_LOGIN.test(error))
    return `Claude’s login on this idea’s host was refused: log in there again ${HOW_TO_LOG_IN}`;
  return undefined;
}

/** The error in words of a run whose outcome needs explaining: Catalyst's own, else the CLI result's. */
function explainedError(input: RunSummaryInput): string | undefined {
  const { ended, result } = input;
  if (isBudgetPause(input) || !outcomesWithError.has(ended.outcome)) return undefined;
  return ended.error?.message ?? result?.error;
}

function measureMs(started: RunStarted | undefined, ended: RunEnded): number | undefined {
  if (started === undefined) return undefined;
  const ms = Date.parse(ended.ts) - Date.parse(started.ts);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${seconds} s`;
}
