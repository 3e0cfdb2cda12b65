import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CliMessage } from '@catalyst/protocol';
import { isCliOwnTurnResult } from '../../core/command-result.ts';

/**
 * Which turn a CLI line belongs to, told from the `uuid` Catalyst sends its user message with (issue 39). Measured
 * on 2.1.331: a `result` lists in `user_message_uuids` (and names the last in `user_message_uuid`) the uuids of the
 * user messages its turn consumed, also one folded into a turn the CLI ran by itself (a background task's
 * notification, `origin.kind: "task-notification"`) when it arrived while that turn ran tools. A result of the
 * CLI's own turn that consumed no message has neither field; nor has a result from an older CLI, or of a message
 * sent without a uuid. (`begun_message_ids` lists the model's `msg_…` ids, not user messages.)
 */

/**
 * The uuid a run's message goes to Claude with: made of the run's id, so that a run taken up after a restart
 * (resume-point.ts) knows the result it reads again as its own. The CLI records it as the message's id in the
 * session, where it must be unique: each run's is.
 */
export function messageUuidOf(runId: string): string {
  const hex = createHash('sha256').update(`catalyst-message:${runId}`).digest('hex');
  // Shaped as a random (v4) UUID, the form the SDK sends.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// Lenient: a field of another shape says nothing, and the result is judged as an older CLI's.
const ConsumedSchema = z.looseObject({
  user_message_uuid: z.string().optional().catch(undefined),
  user_message_uuids: z.array(z.string()).optional().catch(undefined),
});

/** The uuids of the user messages a result's turn consumed, or undefined when the result does not say. */
export function consumedMessageUuids(line: unknown): string[] | undefined {
  const parsed = ConsumedSchema.safeParse(line);
  if (!parsed.success) return undefined;
  const { user_message_uuid: last, user_message_uuids: all } = parsed.data;
  return all ?? (last === undefined ? undefined : [last]);
}

/**
 * Whether a `result` line (typed, or an unknown one's `raw`) ends the turn of the message sent with `uuid`: it
 * lists that uuid; or, where it lists none, it is no turn the CLI ran by itself (command-result.ts).
 */
export function isResultOfMessage(line: unknown, uuid: string): boolean {
  const consumed = consumedMessageUuids(line);
  if (consumed === undefined) return !isCliOwnTurnResult(line);
  const wanted = uuid.toLowerCase();
  return consumed.some((id) => id.toLowerCase() === wanted);
}

/**
 * 2.1.331 prints `{"type":"command_lifecycle","command_uuid":…,"state":"queued"|"started"|"completed"}` for each
 * user message sent with a uuid, the last often just after the turn's result: bookkeeping of the CLI's queue that
 * neither a person nor a turn needs (parsed as an unknown type: it is not shown, and is no idle output).
 */
export function isCommandLifecycleLine(message: CliMessage): boolean {
  return message.type === 'unknown' && message.originalType === 'command_lifecycle';
}
