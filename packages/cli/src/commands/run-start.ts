import { type IdeaId, type RunMode, type RunView, type StartRunBody } from '@catalyst/protocol';
import type { ApiClient } from '../api-client.ts';
import { createCanceller, type Canceller } from '../canceller.ts';
import type { CommandContext } from '../command-context.ts';

/**
 * What `chat`/`build` and `run` share: a run started over REST, and Ctrl-C (or SIGTERM) that cancels it on the
 * server, or leaves it going with --detach.
 */

export function createRunCanceller(context: CommandContext, isDetached: boolean): Canceller {
  return createCanceller({
    what: 'run',
    terminal: context.terminal,
    cancel: (runId) => context.api.call('cancelRun', { params: { runId } }),
    isDetached,
  });
}

/** POST /api/ideas/:id/runs; the run as it started. */
export async function postRun(
  api: ApiClient,
  ideaId: IdeaId,
  command: { mode: RunMode; message: string; budgetUsd?: number | undefined },
): Promise<RunView> {
  const body: StartRunBody = {
    mode: command.mode,
    message: command.message,
    ...(command.budgetUsd === undefined ? {} : { maxBudgetUsd: command.budgetUsd }),
  };
  return (await api.call('startRun', { params: { id: ideaId }, body })).run;
}
