import type { IdeaMeta, RunMode, UpdateIdeaBody } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { RunEnding } from '../runs/core/run-ending.ts';
import type { PromptStats } from '../runs/run-prompts.ts';
import { addPromptTotals } from '../runs/prompt-routing.ts';

/** How a run's end and a PATCH change an idea's meta.json, and how a host's failure reads to a person. */

export function addTotals(
  meta: IdeaMeta,
  run: { mode: RunMode; ending: RunEnding; stats?: PromptStats | undefined },
): IdeaMeta {
  const { mode, ending } = run;
  const result = ending.result;
  return addPromptTotals(
    {
      ...meta,
      lastMode: mode,
      ...(result?.sessionId ? { sessionId: result.sessionId } : {}),
      totals: {
        ...meta.totals,
        runs: meta.totals.runs + 1,
        // Each run is its own CLI process, so its result's cumulative cost is this run's cost (protocol §3.4).
        costUsd: meta.totals.costUsd + (result?.costUsd ?? 0),
        turns: meta.totals.turns + (result?.numTurns ?? 0),
      },
    },
    run.stats,
  );
}

/**
 * Only the fields the body names change; `null` removes an optional setting (`humanAnswerLimitMs`, `budgetUsd`,
 * `qaModel`).
 */
export function applyUpdate(meta: IdeaMeta, body: UpdateIdeaBody): IdeaMeta {
  const { title, description, questionPolicy, autoAnswerDelayMs, permissionPolicy, humanAnswerLimitMs } =
    body;
  const { budgetUsd, qaModel } = body;
  const next: IdeaMeta = {
    ...meta,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(questionPolicy === undefined ? {} : { questionPolicy }),
    ...(autoAnswerDelayMs === undefined ? {} : { autoAnswerDelayMs }),
    ...(permissionPolicy === undefined ? {} : { permissionPolicy }),
  };
  if (humanAnswerLimitMs === null) delete next.humanAnswerLimitMs;
  else if (humanAnswerLimitMs !== undefined) next.humanAnswerLimitMs = humanAnswerLimitMs;
  if (budgetUsd === null) delete next.budgetUsd;
  else if (budgetUsd !== undefined) next.budgetUsd = budgetUsd;
  if (qaModel === null) delete next.qaModel;
  else if (qaModel !== undefined) next.qaModel = qaModel;
  const { previewCommand, previewPort } = body;
  if (previewCommand === null) delete next.previewCommand;
  else if (previewCommand !== undefined) next.previewCommand = previewCommand;
  if (previewPort === null) delete next.previewPort;
  else if (previewPort !== undefined) next.previewPort = previewPort;
  return next;
}

export function toUnavailable(error: unknown, host: string): unknown {
  if (isCatalystError(error)) {
    const isIdeaLevel = ['IDEA_NOT_FOUND', 'INVALID_ARGUMENT', 'FILE_ERROR'].includes(error.code);
    return isIdeaLevel
      ? error
      : new CatalystError('HOST_UNAVAILABLE', `Host ${host} is unavailable: ${error.message}`, {
          cause: error,
        });
  }
  return new CatalystError('HOST_UNAVAILABLE', `Host ${host} is unavailable: ${messageOf(error)}`, {
    cause: error,
  });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
