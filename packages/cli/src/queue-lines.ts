import type { AutopilotView } from '@catalyst/protocol';
import { oneLine } from './event-lines.ts';
import { formatCost } from './outcome-line.ts';
import type { Paint } from './paint.ts';

/** The queue as `catalyst queue` prints it: its state, then each waiting message with its id. Pure. */
export function formatQueue(queue: AutopilotView | null, paint: Paint): string {
  if (queue === null) return `${paint.dim('Nothing is queued.')}\n`;
  const waiting = queue.steps.filter((step) => step.state === 'pending' && step.runId === undefined);
  const running = queue.steps.find((step) => step.state === 'running');
  const what = queue.kind === 'autopilot' ? 'Autopilot' : 'Queue';
  const budget = queue.maxBudgetUsd === undefined ? '' : ` of ${formatCost(queue.maxBudgetUsd)}`;
  const lines = [
    `${paint.bold(`${what} ${queue.state}`)}${paint.dim(` · ${String(waiting.length)} waiting · ${formatCost(queue.costUsd)}${budget} spent · ${queue.id}`)}`,
  ];
  if (queue.paused !== undefined) lines.push(paint.yellow(`Paused: ${queue.paused.message}`));
  if (running !== undefined) lines.push(`  now  ${running.mode}: ${oneLine(running.message)}`);
  waiting.forEach((step, index) => {
    lines.push(
      `  ${String(index + 1).padStart(3)}  ${step.mode}: ${oneLine(step.message)} ${paint.dim(`(${step.id})`)}`,
    );
  });
  return `${lines.join('\n')}\n`;
}
