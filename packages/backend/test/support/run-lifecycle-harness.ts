import type { RunOutcome } from '../../src/core/run-outcome.ts';
import { lineOf } from './cli-line-fixtures.ts';
import {
  RunLifecycle,
  type RunCommand,
  type RunInput,
  type RunLifecycleOptions,
  type TimerName,
} from '../../src/runs/core/run-lifecycle.ts';

/**
 * For the lifecycle's unit tests: a fake driver with a fake clock. It keeps the timers the machine asked for and
 * fires them, in due order, as time advances, like the real run manager would. It checks the timer protocol as it
 * goes: a `clear_timer` must name an armed timer.
 */
export class LifecycleHarness {
  readonly lifecycle: RunLifecycle;
  readonly log: RunCommand[] = [];
  readonly timers = new Map<TimerName, number>();
  now = 1_000_000;

  constructor(options: Partial<RunLifecycleOptions> = {}) {
    this.lifecycle = new RunLifecycle({
      ideaId: 'idea-0123456789abcdef',
      runId: 'run-1',
      mode: 'build',
      prompt: 'Add a README',
      ...options,
    });
  }

  start(): RunCommand[] {
    return this.feed({ type: 'started', now: this.now });
  }

  line(raw: Record<string, unknown>): RunCommand[] {
    return this.feed({ type: 'message', message: lineOf(raw), now: this.now });
  }

  stderr(text: string): RunCommand[] {
    return this.feed({ type: 'stderr', text, now: this.now });
  }

  cancel(): RunCommand[] {
    return this.feed({ type: 'cancel_requested', now: this.now });
  }

  pending(id: string, isStarting: boolean): RunCommand[] {
    const type = isStarting ? 'pending_started' : 'pending_finished';
    return this.feed({ type, id, now: this.now });
  }

  outcome(outcome: RunOutcome): RunCommand[] {
    return this.feed({ type: 'host_outcome', outcome, now: this.now });
  }

  /** Moves the clock on, firing each timer that falls due (at its due time), including ones armed meanwhile. */
  advance(ms: number): RunCommand[] {
    const target = this.now + ms;
    const produced: RunCommand[] = [];
    for (let next = this.#nextDue(target); next !== undefined; next = this.#nextDue(target)) {
      const [name, dueAt] = next;
      this.timers.delete(name);
      this.now = dueAt;
      produced.push(...this.feed({ type: 'timer_fired', name, now: this.now }));
    }
    this.now = target;
    return produced;
  }

  feed(input: RunInput): RunCommand[] {
    const commands = this.lifecycle.handle(input);
    for (const command of commands) this.#apply(command);
    this.log.push(...commands);
    return commands;
  }

  #apply(command: RunCommand): void {
    if (command.type === 'set_timer') this.timers.set(command.name, this.now + command.ms);
    if (command.type !== 'clear_timer') return;
    if (!this.timers.delete(command.name))
      throw new Error(`clear_timer for ${command.name}, which is not armed`);
  }

  #nextDue(target: number): [TimerName, number] | undefined {
    const due = [...this.timers].filter(([, dueAt]) => dueAt <= target);
    return due.sort((a, b) => a[1] - b[1])[0];
  }
}

export function typesOf(commands: readonly RunCommand[]): string[] {
  return commands.map((command) => {
    if (command.type === 'emit') return `emit:${command.event.type}`;
    if (command.type === 'relay_live') return `live:${command.frame.type}`;
    return command.type;
  });
}

export function finishesOf(commands: readonly RunCommand[]): Extract<RunCommand, { type: 'finish' }>[] {
  return commands.flatMap((command) => (command.type === 'finish' ? [command] : []));
}

export function writtenLines(commands: readonly RunCommand[]): unknown[] {
  return commands.flatMap((command): unknown[] => {
    if (command.type !== 'write_line') return [];
    const parsed: unknown = JSON.parse(command.line);
    return [parsed];
  });
}
