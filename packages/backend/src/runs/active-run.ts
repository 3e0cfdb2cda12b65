import type { RunEnding } from './core/run-ending.ts';
import type { RunPrompts } from './run-prompts.ts';

/** What a person can do with the prompts of a running run. */
export type PromptControls = Pick<
  RunPrompts,
  'answerQuestion' | 'dismissQuestion' | 'answerPermission' | 'pending' | 'stats'
>;

export interface ActiveRun {
  readonly runId: string;
  readonly ended: Promise<RunEnding>;
  readonly prompts?: PromptControls;
  /** The run's session on the host (runs in sessions, run-driver.ts). */
  readonly sessionId?: string | undefined;
  cancel(): void;
  /**
   * Catalyst stops but Claude goes on (a restart, an update): lets go of the run without ending it, so the next
   * Catalyst takes it up from its session. `ended` settles (`connection_lost`) with nothing written.
   */
  detach?(): void;
}
