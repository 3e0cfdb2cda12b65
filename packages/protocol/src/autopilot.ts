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
  PauseReasonSchema,
  QueueKindSchema,
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
  /** What a person edits, moves, removes or sends now while it waits (`/api/ideas/:id/queue/:stepId`). */
  id: z.string(),
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
  kind: QueueKindSchema,
  state: AutopilotStateSchema,
  /** While `paused`: why, and since when. */
  paused: z.object({ reason: PauseReasonSchema, message: z.string(), at: z.string() }).optional(),
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

/**
 * The queue of next messages (issue 30): an idea's running or paused autopilot (of either kind), whose waiting
 * steps a person edits, reorders, removes or sends now. A message sent while the idea is busy joins it (a new
 * queue when there is none); it is sent once the idea is idle.
 */
export const QueueResponseSchema = z.object({ queue: AutopilotViewSchema.nullable() });
export type QueueResponse = z.infer<typeof QueueResponseSchema>;
/** What an action on a queue answers: the queue as it now is. */
export const QueueActionResponseSchema = z.object({ queue: AutopilotViewSchema });

/** `POST /api/ideas/:id/queue`: sent at once when the idea is idle and nothing waits; queued otherwise. */
export const AddToQueueBodySchema = z.strictObject({
  mode: RunModeSchema,
  message: z.string().min(1).max(100_000),
  /** Stops the turn that runs now (as Cancel does) and sends this message next. */
  sendNow: z.boolean().default(false),
});
export type AddToQueueBody = z.infer<typeof AddToQueueBodySchema>;

/** `PATCH /api/ideas/:id/queue/:stepId`: a waiting step's text, mode or place (0: next). */
export const UpdateQueuedStepBodySchema = z
  .strictObject({
    mode: RunModeSchema.optional(),
    message: z.string().min(1).max(100_000).optional(),
    position: z.number().int().nonnegative().max(MAX_AUTOPILOT_STEPS).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Say what to change: mode, message or position.');
export type UpdateQueuedStepBody = z.infer<typeof UpdateQueuedStepBodySchema>;

/** `PATCH /api/ideas/:id/queue`: its budget (null removes it); a queue paused by its budget goes on once it allows. */
export const UpdateQueueBodySchema = z.strictObject({
  maxBudgetUsd: z.number().positive().max(MAX_BUDGET_USD).nullable(),
});
export type UpdateQueueBody = z.infer<typeof UpdateQueueBodySchema>;

/** `POST /api/ideas/:id/queue/resume`: goes on with a paused queue; `oneMoreStep` runs one step past its budget. */
export const ResumeQueueBodySchema = z.strictObject({ oneMoreStep: z.boolean().default(false) });
export type ResumeQueueBody = z.infer<typeof ResumeQueueBodySchema>;

export const QUEUE_STEP_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;
