import { z } from 'zod';
import {
  PermissionDenialSchema,
  type CliResultMessage,
  type CommandResult,
  type PermissionDenial,
  type UnknownCliMessage,
} from '@catalyst/protocol';

/**
 * Turns the CLI's `result` line into a `CommandResult`. It accepts the typed result and also the `unknown` message
 * the parser yields for a `result` it could not type (an unknown subtype, or missing fields): the turn has ended
 * either way, and an unreadable ending is a failure, never a crash.
 */

const numberOrZero = z.number().nonnegative().catch(0);

/**
 * Whether a `result` line (typed, or an unknown one's `raw`) ends a turn the CLI ran by itself, not the one Catalyst
 * sent a message for. Measured on 2.1.331: a background task that ended (or was stopped with its process) is told to
 * the model in a turn of the CLI's own, whose result comes with `origin: { kind: "task-notification" }` and no
 * turns, often right before the answer to the message sent (a resumed session delivers what was pending first). A
 * result for a person's message has no `origin`.
 */
export function isCliOwnTurnResult(line: unknown): boolean {
  if (typeof line !== 'object' || line === null || !('origin' in line)) return false;
  const { origin } = line;
  return (
    typeof origin === 'object' && origin !== null && 'kind' in origin && origin.kind === 'task-notification'
  );
}

// Lenient on purpose: what we do not own may lack a field; a missing cost or turn count counts as 0.
const ResultFieldsSchema = z.object({
  subtype: z.string().catch('unknown'),
  is_error: z.boolean().optional().catch(undefined),
  result: z.string().optional().catch(undefined),
  errors: z.array(z.string()).optional().catch(undefined),
  session_id: z.string().optional().catch(undefined),
  total_cost_usd: numberOrZero,
  num_turns: z.number().int().nonnegative().catch(0),
  api_error_status: z.number().int().nullable().optional().catch(undefined),
  terminal_reason: z.string().optional().catch(undefined),
  permission_denials: z.array(z.unknown()).catch([]),
});
type ResultFields = z.infer<typeof ResultFieldsSchema>;

const knownErrorSubtypes = new Set([
  'error_max_turns',
  'error_during_execution',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
]);

function readDenials(values: unknown[]): PermissionDenial[] {
  return values.flatMap((value) => {
    const parsed = PermissionDenialSchema.safeParse(value);
    return parsed.success ? [parsed.data] : [];
  });
}

function describeError(fields: ResultFields): string | undefined {
  if (fields.subtype === 'success') {
    // §3.6: an API error is `success` + `is_error: true`, and its text is in `result`.
    return fields.is_error === false ? undefined : (fields.result ?? 'Command failed: success');
  }
  const errors = fields.errors?.filter((text) => text.length > 0) ?? [];
  if (errors.length > 0) return errors.join('; ');
  if (knownErrorSubtypes.has(fields.subtype)) return `Command failed: ${fields.subtype}`;
  return `Command failed: unknown result subtype "${fields.subtype}"`;
}

export function parseResult(
  message: CliResultMessage | UnknownCliMessage,
  sessionId: string,
  startTimeMs: number,
): CommandResult {
  const fields = ResultFieldsSchema.parse(message.type === 'unknown' ? toRecord(message.raw) : message);
  const error = describeError(fields);
  const success = error === undefined;
  const outcome: CommandResult = {
    success,
    subtype: fields.subtype,
    sessionId: fields.session_id ?? sessionId,
    durationMs: Math.max(0, Date.now() - startTimeMs),
    costUsd: fields.total_cost_usd,
    numTurns: fields.num_turns,
    permissionDenials: readDenials(fields.permission_denials),
  };
  if (success && fields.result !== undefined) outcome.result = fields.result;
  if (error !== undefined) outcome.error = error;
  if (fields.api_error_status != null) outcome.apiErrorStatus = fields.api_error_status;
  if (fields.terminal_reason !== undefined) outcome.terminalReason = fields.terminal_reason;
  return outcome;
}

function toRecord(value: unknown): Record<string, unknown> {
  const parsed = z.record(z.string(), z.unknown()).safeParse(value);
  return parsed.success ? parsed.data : {};
}

/**
 * The turn's result as the run records it: parseResult's, timed by this machine's clock (`now`: parseResult reads
 * the real one) from `startedAt`, and, for a warm process, its cost less what the process had spent before
 * (`warm.costBaseUsd`: the CLI's cost is the process's cumulative one). `parsed` keeps the cumulative figures.
 */
export function turnResult(
  message: CliResultMessage | UnknownCliMessage,
  turn: { sessionId: string; startedAt: number; now: number; warm?: { costBaseUsd: number } | undefined },
): { parsed: CommandResult; result: CommandResult } {
  const parsed = parseResult(message, turn.sessionId, turn.startedAt);
  const { warm } = turn;
  const result: CommandResult = {
    ...parsed,
    durationMs: Math.max(0, turn.now - turn.startedAt),
    ...(warm === undefined ? {} : { costUsd: Math.max(0, parsed.costUsd - warm.costBaseUsd) }),
  };
  return { parsed, result };
}
