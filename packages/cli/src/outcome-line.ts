import type { CommandResult, RunState } from '@catalyst/protocol';
import type { Paint } from './paint.ts';

/** How a run ended, from a `run:ended` event or a RunView: what the outcome line is made of. */
export interface RunSummary {
  state: RunState;
  result?: CommandResult;
  error?: { message: string };
  /** Wall time, for a run that ended without a result (cancelled before the CLI answered). */
  elapsedMs?: number;
}

/** `completed · 2 turns · 3.4 s · $0.0123`; a run that did not complete says why. */
export function formatOutcomeLine(summary: RunSummary, paint: Paint): string {
  const { state, result } = summary;
  // A cancelled turn's result says only how the CLI was interrupted; the cancel itself is the reason.
  const resultError = state === 'cancelled' || result?.success !== false ? undefined : result.error;
  const reason = summary.error?.message ?? resultError;
  const head = reason === undefined ? describeState(state) : `${describeState(state)}: ${reason}`;
  const parts = [paintState(state, head, paint)];
  if (result !== undefined) parts.push(formatTurns(result.numTurns));
  const durationMs = result?.durationMs ?? summary.elapsedMs;
  if (durationMs !== undefined) parts.push(formatDuration(durationMs));
  if (result !== undefined) parts.push(formatCost(result.costUsd));
  return parts.join(paint.dim(' · '));
}

export function describeState(state: RunState): string {
  return state.replace('_', ' ');
}

function paintState(state: RunState, text: string, paint: Paint): string {
  switch (state) {
    case 'completed':
      return paint.green(text);
    case 'cancelled':
    case 'running':
      return paint.yellow(text);
    case 'failed':
    case 'timed_out':
    case 'connection_lost':
      return paint.red(text);
  }
}

function formatTurns(turns: number): string {
  return turns === 1 ? '1 turn' : `${String(turns)} turns`;
}

/** `850 ms`, `3.4 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${String(Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${String(Math.floor(seconds / 60))} min ${String(seconds % 60)} s`;
}

/** Cents hide what a chat costs, so amounts under a dollar keep four decimals. */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}
