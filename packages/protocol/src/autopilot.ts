import { z } from 'zod';
import { CommandResultSchema } from './command-result.ts';
import { ErrorCodeSchema } from './error-codes.ts';
import {
  IdeaIdSchema,
  MAX_BUDGET_USD,
  QuestionPolicySchema,
  RunModeSchema,
  ideaNamedBy,
  ideaNamingIdPattern,
} from './idea.ts';
import {
  AutopilotStateSchema,
  AutopilotStepInputSchema,
  AutopilotStepStateSchema,
  MAX_AUTOPILOT_STEPS,
  QuestionTotalsSchema,
} from './relay-events.ts';

/**
 * Autopilot (issue 12): a list of chat and build messages run one after the other on an idea, unattended, each an
 * ordinary run; Claude's questions answered under the autopilot's own policy. Its view is read from the idea's
 * history (the `autopilot:*` events), and its id names its idea, like a run's.
 */

export const AUTOPILOT_ID_PATTERN = ideaNamingIdPattern('ap');
export const AutopilotIdSchema = z.string().regex(AUTOPILOT_ID_PATTERN, 'not a valid autopilot id');

export function ideaOfAutopilotId(autopilotId: string): string | undefined {
  return ideaNamedBy(AUTOPILOT_ID_PATTERN, autopilotId);
}

/** `POST /api/ideas/:id/autopilot`. */
export const StartAutopilotBodySchema = z.strictObject({
  steps: z.array(AutopilotStepInputSchema).min(1).max(MAX_AUTOPILOT_STEPS),
  questionPolicy: QuestionPolicySchema.default('auto'),
  stopOnFailure: z.boolean().default(true),
  maxBudgetUsd: z.number().positive().max(MAX_BUDGET_USD).optional(),
});
export type StartAutopilotBody = z.infer<typeof StartAutopilotBodySchema>;

export const AutopilotStepViewSchema = z.object({
  mode: RunModeSchema,
  message: z.string(),
  state: AutopilotStepStateSchema,
  runId: z.string().optional(),
  result: CommandResultSchema.optional(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).optional(),
});
export type AutopilotStepView = z.infer<typeof AutopilotStepViewSchema>;

export const AutopilotViewSchema = z.object({
  id: z.string(),
  ideaId: IdeaIdSchema,
  state: AutopilotStateSchema,
  steps: z.array(AutopilotStepViewSchema),
  /** The step running now, or the last one that ran. */
  currentStep: z.number().int().nonnegative(),
  /** What its steps cost (their runs' `costUsd`). */
  costUsd: z.number().nonnegative(),
  /** Claude's questions in all its steps, and how they were answered (the answering model's cost apart). */
  questions: QuestionTotalsSchema,
  questionPolicy: QuestionPolicySchema,
  stopOnFailure: z.boolean(),
  maxBudgetUsd: z.number().positive().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).optional(),
});
export type AutopilotView = z.infer<typeof AutopilotViewSchema>;

export const AutopilotResponseSchema = z.object({ autopilot: AutopilotViewSchema });
/** `GET /api/ideas/:id/autopilot`: null for an idea that never had one. */
export const LatestAutopilotResponseSchema = z.object({ autopilot: AutopilotViewSchema.nullable() });
