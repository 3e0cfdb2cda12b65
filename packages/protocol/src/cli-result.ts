import { z } from 'zod';
import { JsonObjectSchema } from './cli-json-object.ts';

/**
 * `type:"result"`: exactly one per turn, the turn-complete signal (§4). Read the outcome from `subtype` AND
 * `is_error`: API errors arrive as `subtype:"success"` with `is_error:true` (§3.6).
 *
 * A result with a subtype not listed here is NOT a typed result: parseCliOutput turns it into the `unknown`
 * message with `originalType:"result"`, exactly like a known result that fails validation. Downstream code must
 * treat such an unknown message as the end of the turn and as a failure.
 */

export const ResultUsageSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
});
export type ResultUsage = z.infer<typeof ResultUsageSchema>;

/** §3.4; tools that do not exist are not listed (§5). */
export const PermissionDenialSchema = z.looseObject({
  tool_name: z.string(),
  tool_use_id: z.string(),
  tool_input: JsonObjectSchema,
});
export type PermissionDenial = z.infer<typeof PermissionDenialSchema>;

/**
 * §3.4, §3.5. `total_cost_usd` and `modelUsage` are cumulative over the process, `usage` belongs to the turn.
 * `terminal_reason` is missing on the startup-failure and max-budget lines.
 */
const resultFields = {
  type: z.literal('result'),
  session_id: z.string(),
  uuid: z.string().optional(),
  is_error: z.boolean(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number(),
  stop_reason: z.string().nullable(),
  terminal_reason: z.string().optional(),
  total_cost_usd: z.number(),
  usage: ResultUsageSchema.optional(),
  modelUsage: JsonObjectSchema.optional(),
  permission_denials: z.array(PermissionDenialSchema),
};

/**
 * `result` is the text of the last assistant message, or the API error text when `is_error` (§3.6). The result of
 * a turn the CLI ran by itself (2.1.331: a background task's notification, `origin.kind: "task-notification"`) has
 * no `api_error_status`.
 */
export const ResultSuccessMessageSchema = z.looseObject({
  ...resultFields,
  subtype: z.literal('success'),
  result: z.string(),
  api_error_status: z.number().nullable().optional(),
});
export type ResultSuccessMessage = z.infer<typeof ResultSuccessMessageSchema>;

export const ResultErrorSubtypeSchema = z.enum([
  'error_max_turns',
  'error_during_execution',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
]);
export type ResultErrorSubtype = z.infer<typeof ResultErrorSubtypeSchema>;

/** §3.5: no `result` and no `api_error_status`; `errors` may hold an internal diagnostic, not a sentence. */
export const ResultErrorMessageSchema = z.looseObject({
  ...resultFields,
  subtype: ResultErrorSubtypeSchema,
  errors: z.array(z.string()),
});
export type ResultErrorMessage = z.infer<typeof ResultErrorMessageSchema>;

export const CliResultMessageSchema = z.discriminatedUnion('subtype', [
  ResultSuccessMessageSchema,
  ResultErrorMessageSchema,
]);
export type CliResultMessage = z.infer<typeof CliResultMessageSchema>;
