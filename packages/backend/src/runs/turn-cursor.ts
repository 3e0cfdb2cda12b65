import type { RelayEventDraft } from '@catalyst/protocol';
import { isAtOrBefore, type LineCursor } from './resume-point.ts';

/** What made the lifecycle act: the source an event records, and what a replay suppresses. */
export type Trigger = 'stdout' | 'stderr' | 'replayed' | 'other';

/**
 * Where a run is in its turn's output: the stdout line being handled and how many events were made of it so far,
 * what made the lifecycle act just now, and, for a run taken up from its session after a restart (resume-point.ts),
 * whether that is output the history already holds (`recorded`: the cursor of the last event it holds).
 */
export class TurnCursor {
  readonly #recorded: LineCursor | undefined;
  /** Stdout lines fed to the lifecycle since the turn began, and events made of the last one so far. */
  #line = 0;
  #part = 0;
  #trigger: Trigger = 'other';

  constructor(recorded: LineCursor | undefined) {
    this.#recorded = recorded;
  }

  /** Whether no stdout line of the turn has come yet. */
  get isBeforeFirstLine(): boolean {
    return this.#line === 0;
  }

  /** The next stdout line of the turn is being handled. */
  nextLine(): void {
    this.#line += 1;
    this.#part = 0;
  }

  /** Runs `act` with `trigger` as what made the lifecycle act, then goes back to the one before. */
  during(trigger: Trigger, act: () => void): void {
    const before = this.#trigger;
    this.#trigger = trigger;
    try {
      act();
    } finally {
      this.#trigger = before;
    }
  }

  /** Where the event being made now comes from: the next part of a stdout line, a place in stderr, or neither. */
  origin(stderrOffset: () => number): RelayEventDraft['origin'] {
    if (this.#trigger === 'stdout' || this.#trigger === 'replayed')
      return { line: this.#line, part: this.#part++ };
    return this.#trigger === 'stderr' ? { stderr: stderrOffset() } : undefined;
  }

  /** Whether `at` is already in the history of the run being taken up. */
  isRecorded(at: LineCursor): boolean {
    return this.#recorded !== undefined && isAtOrBefore(at, this.#recorded);
  }

  /**
   * Whether a write (or live text) the lifecycle asks for now comes of output the run already handled, read
   * again: it was done then.
   */
  isReplayedWrite(): boolean {
    if (this.#recorded === undefined) return false;
    if (this.#trigger === 'replayed') return true;
    return this.#trigger === 'stdout' && this.#line <= this.#recorded.line;
  }
}
