import type { AutopilotState, AutopilotStepState, AutopilotView, RelayEvent } from '@catalyst/protocol';
import { formatCost, formatDuration } from './outcome-line.ts';
import { oneLine } from './event-lines.ts';
import type { Paint } from './paint.ts';

/** An autopilot's progress, one line per step start and end. Pure. */

type EventOf<T extends RelayEvent['type']> = Extract<RelayEvent, { type: T }>;

export function formatAutopilotStarted(view: AutopilotView, paint: Paint): string {
  const steps = view.steps.length === 1 ? '1 step' : `${String(view.steps.length)} steps`;
  const budget = view.maxBudgetUsd === undefined ? '' : `, at most ${formatCost(view.maxBudgetUsd)}`;
  return paint.dim(`Autopilot ${view.id}: ${steps}, questions answered ${view.questionPolicy}${budget}`);
}

export function formatStepStarted(view: AutopilotView, index: number, paint: Paint): string {
  const step = view.steps[index];
  const what = step === undefined ? '' : ` ${step.mode}: ${oneLine(step.message)}`;
  return `${paint.bold(stepLabel(index, view.steps.length))} started${what}`;
}

export function formatStepEnded(event: EventOf<'autopilot:step_ended'>, total: number, paint: Paint): string {
  // As for a run: a cancelled turn's result says only how the CLI was interrupted.
  const resultError =
    event.state === 'cancelled' || event.result?.success !== false ? undefined : event.result.error;
  const reason = event.error?.message ?? resultError;
  const head = `${event.state.replace('_', ' ')}${reason === undefined ? '' : `: ${oneLine(reason)}`}`;
  const parts = [paintState(event.state, head, paint)];
  if (event.result !== undefined) {
    const { numTurns, durationMs, costUsd } = event.result;
    parts.push(
      numTurns === 1 ? '1 turn' : `${String(numTurns)} turns`,
      formatDuration(durationMs),
      formatCost(costUsd),
    );
  }
  return `${paint.bold(stepLabel(event.index, total))} ${parts.join(paint.dim(' · '))}`;
}

export function formatAutopilotEnded(event: EventOf<'autopilot:ended'>, paint: Paint): string {
  const head = `Autopilot ${event.state}${event.error === undefined ? '' : `: ${oneLine(event.error.message)}`}`;
  return `${paintState(event.state, head, paint)}${paint.dim(' · ')}${formatCost(event.costUsd)}`;
}

function stepLabel(index: number, total: number): string {
  return `[${String(index + 1)}/${String(total)}]`;
}

function paintState(state: AutopilotStepState | AutopilotState, text: string, paint: Paint): string {
  switch (state) {
    case 'completed':
      return paint.green(text);
    case 'failed':
      return paint.red(text);
    case 'cancelled':
    case 'skipped':
    case 'pending':
    case 'running':
    case 'paused':
      return paint.yellow(text);
  }
}
