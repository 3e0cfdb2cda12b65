import type { QueueKind } from '@catalyst/protocol';
import {
  handleQueue,
  newQueue,
  type QueueCommand,
  type QueueInput,
  type QueueState,
} from '../../src/queue/core/queue-machine.ts';
import type { RunEnding } from '../../src/runs/core/run-ending.ts';

/**
 * What the queue machine's tests (queue-*.test.ts) share: queues to start from, inputs fed in order, endings (its
 * driver's test, queue/autopilots.test.ts, takes its endings from here too).
 */

export const ideaId = 'idea-0123456789abcdef';

/** A queue of chat steps s1, s2, … (an autopilot answers its questions itself and stops on failure by default). */
export function queueOf(
  kind: QueueKind,
  messages: string[],
  options: { maxBudgetUsd?: number; stopOnFailure?: boolean } = {},
): QueueState {
  const steps = messages.map((message, index) => ({
    id: `s${String(index + 1)}`,
    mode: 'chat' as const,
    message,
  }));
  return newQueue(
    {
      ideaId,
      id: 'ap-1',
      kind,
      steps,
      questionPolicy: kind === 'autopilot' ? 'auto' : undefined,
      stopOnFailure: options.stopOnFailure ?? kind === 'autopilot',
      maxBudgetUsd: options.maxBudgetUsd,
    },
    'human',
  ).state;
}

/** Feeds the inputs in order: the last state, and every command. */
export function feed(
  state: QueueState,
  ...inputs: QueueInput[]
): { state: QueueState; commands: QueueCommand[] } {
  const commands: QueueCommand[] = [];
  let now = state;
  for (const input of inputs) {
    const transition = handleQueue(now, input);
    now = transition.state;
    commands.push(...transition.commands);
  }
  return { state: now, commands };
}

export const next: QueueInput = { type: 'next', isIdeaBusy: false };

/** The next step launched, its run started and ended so: what came of the start and the end. */
export function runStep(state: QueueState, runId: string, ending: RunEnding) {
  return feed(feed(state, next).state, { type: 'launched', runId }, { type: 'step_ended', runId, ending });
}

export function eventsOf(commands: QueueCommand[]) {
  return commands.flatMap((command) => (command.type === 'emit' ? [command.event] : []));
}

export function movesOf(commands: QueueCommand[]): QueueCommand[] {
  return commands.filter((command) => ['wait', 'wait_until_free', 'launch', 'end'].includes(command.type));
}

/** A run that completed, having cost `costUsd`, with `result` as its result's text. */
export function completed(costUsd: number, result = 'done'): RunEnding {
  return {
    outcome: 'completed',
    result: {
      success: true,
      subtype: 'success',
      sessionId: 's',
      durationMs: 1,
      numTurns: 1,
      costUsd,
      permissionDenials: [],
      result,
    },
  };
}

export function failed(message: string): RunEnding {
  return { outcome: 'failed', error: { code: 'CLI_FAILED', message } };
}

/** The CLI's own stop at the budget it was given (`error_max_budget_usd`). */
export function budgetStop(costUsd: number): RunEnding {
  return {
    ...completed(costUsd),
    outcome: 'failed',
    error: { code: 'BUDGET_EXCEEDED', message: 'Claude stopped at the budget it was given.' },
  };
}
