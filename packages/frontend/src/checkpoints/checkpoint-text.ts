import type { CheckpointKind, RelayEvent } from '@catalyst/protocol';

/** What checkpoints are called on the page (issue 13). */

export type CheckpointEvent = Extract<RelayEvent, { type: 'checkpoint:created' }>;

/** Why a restore is refused during a run (the server says RUN_IN_PROGRESS too). */
export const RESTORE_WHILE_RUNNING =
  'Wait for the run to end: the project cannot be restored while Claude works on it.';

/** A commit as people write it: its first seven digits. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 7);
}

export const CHECKPOINT_KIND_WORDS: Record<CheckpointKind, string> = {
  build: 'After a build',
  before_build: 'Before a build',
  before_restore: 'Before a restore',
  restore: 'Restore',
};
