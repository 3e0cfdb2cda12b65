import { z } from 'zod';
import { CommandResultSchema } from './command-result.ts';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaIdSchema, MAX_BUDGET_USD, RunModeSchema, ideaNamedBy, ideaNamingIdPattern } from './idea.ts';
import { RunOutcomeKindSchema } from './relay-events.ts';
import { MAX_MESSAGE_CHARS } from './ws-frames.ts';

/**
 * Runs as the REST API shows them (issue 12): programmatic clients start one, wait for it and read its
 * `CommandResult`. A run's view is read from the idea's history (its `run:started` and `run:ended`), so it survives
 * restarts. A run id names its idea (`run-<the idea id's 16 characters>-<uuid>`), so `/api/runs/:runId` finds it.
 */

export const RUN_ID_PATTERN = ideaNamingIdPattern('run');
export const RunIdSchema = z.string().regex(RUN_ID_PATTERN, 'not a valid run id');

export const RunStateSchema = z.enum(['running', ...RunOutcomeKindSchema.options]);
export type RunState = z.infer<typeof RunStateSchema>;

export const RunViewSchema = z.object({
  id: z.string(),
  ideaId: IdeaIdSchema,
  mode: RunModeSchema,
  message: z.string(),
  state: RunStateSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  result: CommandResultSchema.optional(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).optional(),
});
export type RunView = z.infer<typeof RunViewSchema>;

/** `POST /api/ideas/:id/runs`. */
export const StartRunBodySchema = z.strictObject({
  mode: RunModeSchema,
  message: z.string().min(1).max(MAX_MESSAGE_CHARS),
  /** At most this much for this run, besides the idea's own budget: the CLI stops itself there. */
  maxBudgetUsd: z.number().positive().max(MAX_BUDGET_USD).optional(),
});
export type StartRunBody = z.infer<typeof StartRunBodySchema>;

export const RunResponseSchema = z.object({ run: RunViewSchema });
export const RunListResponseSchema = z.object({ runs: z.array(RunViewSchema) });

/** `GET /api/runs/:runId?waitMs=` holds the request at most this long. */
export const MAX_RUN_WAIT_MS = 60_000;
export const DEFAULT_RUN_LIST_LIMIT = 20;
export const MAX_RUN_LIST_LIMIT = 500;

/** The idea a run id names, or undefined when it is not a run id. */
export function ideaOfRunId(runId: string): string | undefined {
  return ideaNamedBy(RUN_ID_PATTERN, runId);
}
