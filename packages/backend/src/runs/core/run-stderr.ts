import { toStderrDraft, type RelayContext } from './relay-mapping.ts';
import { emit, type RunCommand } from './run-commands.ts';
import type { SessionRecovery } from './lost-session.ts';

const TAIL_CHARS = 2_000;

/**
 * A run's stderr: its last part, for the ending's message (run-ending.ts), and an event for each chunk, held back
 * while a resumed session may be gone (lost-session.ts): a lost session's stderr is said by the new one's notice.
 */
export class RunStderr {
  readonly #context: RelayContext;
  readonly #recovery: SessionRecovery;
  #tail = '';

  constructor(context: RelayContext, recovery: SessionRecovery) {
    this.#context = context;
    this.#recovery = recovery;
  }

  get tail(): string {
    return this.#tail;
  }

  /** The run goes on in a new session: what the old one printed is not its ending's. */
  forget(): void {
    this.#tail = '';
  }

  /** A chunk of stderr: its event, or none yet while the recovery holds it (never while the run stops). */
  take(text: string, isStopping: boolean): RunCommand[] {
    this.#tail = (this.#tail + text).slice(-TAIL_CHARS);
    if (this.#recovery.isWatching && !isStopping) {
      this.#recovery.holdStderr(text);
      return [];
    }
    return this.event(text);
  }

  event(text: string): RunCommand[] {
    return text === '' ? [] : [emit(toStderrDraft(text, this.#context))];
  }
}
