import type { CommandResult, ErrorCode, RunOutcomeKind } from '@catalyst/protocol';
import type { RunOutcome } from '../../core/run-outcome.ts';

/**
 * How a run ends, decided once from what the run saw (run-lifecycle.ts). Precedence, strongest first:
 * 1. a stop Catalyst began (cancel → `cancelled`; a timeout → `timed_out`), whatever the CLI printed after it;
 * 2. a `result` line: the turn is over and the session saved, so a connection lost while the CLI exits does not
 *    undo it (`completed`, or `failed` with the CLI's error);
 * 3. the host's outcome: an exit without a result is `failed` with stderr's tail, a lost connection or lease is
 *    `connection_lost`, the wrapper's max runtime is `timed_out`, a start failure is `failed` with its code.
 */

export interface RunError {
  code: ErrorCode;
  message: string;
}

export interface RunEnding {
  outcome: RunOutcomeKind;
  result?: CommandResult;
  error?: RunError;
}

export type StopReason =
  | { outcome: 'cancelled' }
  | { outcome: 'timed_out'; message: string }
  /** Catalyst itself could not go on (e.g. no usable automatic answer to a question). */
  | { outcome: 'failed'; error: RunError };

export interface EndingFacts {
  stop: StopReason | undefined;
  result: CommandResult | undefined;
  stderrTail: string;
}

export function decideEnding(facts: EndingFacts, outcome: RunOutcome): RunEnding {
  const { stop, result } = facts;
  if (stop !== undefined) {
    const ending = endingFromStop(stop);
    // Kept for the totals (cost, turns) even though the run was stopped.
    if (result !== undefined) ending.result = result;
    return ending;
  }
  if (result !== undefined) {
    if (result.success) return { outcome: 'completed', result };
    if (result.subtype === 'error_max_budget_usd') {
      const message = `Claude stopped at the budget it was given (${result.error ?? 'its maximum budget was reached'}).`;
      return { outcome: 'failed', result, error: { code: 'BUDGET_EXCEEDED', message } };
    }
    const message = result.error ?? `Claude reported a failure (${result.subtype})`;
    return { outcome: 'failed', result, error: { code: 'CLI_FAILED', message } };
  }
  return endingFromHost(outcome, facts.stderrTail);
}

function endingFromStop(stop: StopReason): RunEnding {
  switch (stop.outcome) {
    case 'cancelled':
      return { outcome: 'cancelled' };
    case 'timed_out':
      return { outcome: 'timed_out', error: { code: 'RUN_TIMED_OUT', message: stop.message } };
    case 'failed':
      return { outcome: 'failed', error: stop.error };
  }
}

function endingFromHost(outcome: RunOutcome, stderrTail: string): RunEnding {
  switch (outcome.kind) {
    case 'exited':
      return { outcome: 'failed', error: { code: 'CLI_FAILED', message: describeExit(outcome, stderrTail) } };
    case 'cancelled':
      return { outcome: 'cancelled' };
    case 'lease_lost':
      return {
        outcome: 'connection_lost',
        error: { code: 'CONNECTION_LOST', message: 'The run stopped: its host lost contact with Catalyst.' },
      };
    case 'max_runtime':
      return {
        outcome: 'timed_out',
        error: {
          code: 'RUN_TIMED_OUT',
          message: 'Claude run timed out (stopped by the host at its time limit)',
        },
      };
    case 'connection_lost':
      return { outcome: 'connection_lost', error: { code: 'CONNECTION_LOST', message: outcome.message } };
    case 'disk_full':
      return { outcome: 'failed', error: { code: 'HOST_DISK_FULL', message: DISK_FULL_MESSAGE } };
    case 'vanished':
      return { outcome: 'failed', error: { code: 'SESSION_GONE', message: VANISHED_MESSAGE } };
    case 'start_failed':
      return { outcome: 'failed', error: { code: outcome.code, message: outcome.message } };
  }
}

function describeExit(outcome: Extract<RunOutcome, { kind: 'exited' }>, stderrTail: string): string {
  const how =
    outcome.signal !== null ? `was stopped by ${outcome.signal}` : `exited with code ${outcome.code ?? '?'}`;
  const tail = stderrTail.trim();
  return `Claude ${how} without finishing its turn${tail === '' ? ' (stderr was empty)' : `: ${tail}`}`;
}

export const DISK_FULL_MESSAGE =
  'The VM’s disk is full: Claude’s output could not be written any more, so the run was stopped. Everything ' +
  'before that is kept above. Free some space on the VM, then send the message again.';

export const VANISHED_MESSAGE =
  'Claude’s process on the VM ended without a word — the VM may have restarted or run out of memory. Everything ' +
  'before it is kept above.';

export function describeInactivityTimeout(ms: number): string {
  return `Claude process timed out (no output for ${formatDuration(ms)})`;
}

export function describeMaxDurationTimeout(ms: number): string {
  return `Claude run timed out (still running after ${formatDuration(ms)})`;
}

const UNITS = [
  { ms: 3_600_000, name: 'hour' },
  { ms: 60_000, name: 'minute' },
  { ms: 1_000, name: 'second' },
] as const;

/**
 * A duration for a sentence: the largest unit that divides it exactly ("10 minutes", "1 minute", "90 seconds",
 * "2 hours"), else seconds with decimals ("1.5 seconds"), else milliseconds ("250 milliseconds").
 */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole === 0) return '0 seconds';
  const exact = UNITS.find((unit) => whole % unit.ms === 0);
  if (exact !== undefined) return pluralize(whole / exact.ms, exact.name);
  return whole >= 1_000 ? pluralize(whole / 1_000, 'second') : pluralize(whole, 'millisecond');
}

function pluralize(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
