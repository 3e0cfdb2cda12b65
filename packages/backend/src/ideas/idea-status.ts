import type { ErrorCode, IdeaStatus, RunMode, RunOutcomeKind } from '@catalyst/protocol';

/**
 * An idea's status as a person reads it: `captured` until the first chat; `chatting` while it is talked
 * through; `building` while a build runs; then `built` or `failed` by the build's outcome. A build the person
 * cancelled goes back to `chatting`: nothing broke, they stopped it; so does one that stopped at the idea's budget (a
 * pause, not a failure: raised, it goes on). Chat runs never undo `built` or `failed`.
 */
export function statusAtStart(current: IdeaStatus, mode: RunMode): IdeaStatus {
  if (mode === 'build') return 'building';
  return current === 'captured' ? 'chatting' : current;
}

export function statusAfterRun(
  current: IdeaStatus,
  mode: RunMode,
  outcome: RunOutcomeKind,
  errorCode?: ErrorCode,
): IdeaStatus {
  if (mode === 'chat') return current;
  if (errorCode === 'BUDGET_EXCEEDED') return 'chatting';
  switch (outcome) {
    case 'completed':
      return 'built';
    case 'cancelled':
      return 'chatting';
    case 'failed':
    case 'timed_out':
    case 'connection_lost':
      return 'failed';
  }
}
