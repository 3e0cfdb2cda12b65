import { z } from 'zod';
import { PermissionDenialSchema } from './cli-result.ts';

/**
 * The outcome of one CLI turn, read from its `result` line. `success` holds only for `subtype: "success"` with
 * `is_error: false`: an API error arrives as `success` + `is_error: true` (protocol §3.6) and is a failure here.
 */
export const CommandResultSchema = z.object({
  success: z.boolean(),
  /** The text of the last assistant message (success only). */
  result: z.string().optional(),
  /** Why it failed, in words a person can act on. */
  error: z.string().optional(),
  /** The CLI's own subtype, kept as sent (an unknown subtype is kept too, and is a failure). */
  subtype: z.string(),
  sessionId: z.string(),
  durationMs: z.number().nonnegative(),
  /** Cumulative over the CLI process in multi-turn stream-json sessions (protocol §3.4): take the latest. */
  costUsd: z.number().nonnegative(),
  numTurns: z.number().int().nonnegative(),
  apiErrorStatus: z.number().int().optional(),
  permissionDenials: z.array(PermissionDenialSchema),
  terminalReason: z.string().optional(),
});
export type CommandResult = z.infer<typeof CommandResultSchema>;
