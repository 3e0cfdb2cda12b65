import { z } from 'zod';
import { JsonObjectSchema } from './cli-json-object.ts';
import { AssistantContentBlockSchema, UserContentBlockSchema } from './cli-content-blocks.ts';

/** The conversation lines of the CLI's stdout: `assistant`, `user` and `stream_event` (§3). */

/** §3.6: the `model` of the assistant line the CLI fabricates for an API error. */
export const SYNTHETIC_MODEL = '<synthetic>';

/**
 * §3.2, §12: ONE content block per line; lines of one API response share `message.id`. `stop_reason` is null
 * except after a non-streaming fallback (§11) and on synthetic lines; `usage` is not final, so it is not typed.
 */
export const AssistantApiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(AssistantContentBlockSchema),
  stop_reason: z.string().nullable(),
});
export type AssistantApiMessage = z.infer<typeof AssistantApiMessageSchema>;

/**
 * §3.6: on an API error the CLI prints an assistant line with `message.model` = SYNTHETIC_MODEL, the error text
 * as its text block, and a top-level `error` ("server_error", "rate_limit", "authentication_failed", "unknown",
 * "max_output_tokens"). Only synthetic lines carry `error`.
 */
export const CliAssistantMessageSchema = z.looseObject({
  type: z.literal('assistant'),
  message: AssistantApiMessageSchema,
  parent_tool_use_id: z.string().nullable(),
  session_id: z.string(),
  uuid: z.string().optional(),
  request_id: z.string().optional(),
  error: z.string().optional(),
});
export type CliAssistantMessage = z.infer<typeof CliAssistantMessageSchema>;

/** §3.3, §3.10: `content` may be a plain string (compaction summary, local command output). */
export const UserApiMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.array(UserContentBlockSchema), z.string()]),
});
export type UserApiMessage = z.infer<typeof UserApiMessageSchema>;

/**
 * §3.3: structured tool output on success (for Edit it holds the whole file, so lines reach 10 MB), an
 * "Error: …" string on failure. Arrays are accepted too, so a tool whose output is a list does not cost us the
 * whole tool_result line.
 */
export const ToolUseResultSchema = z.union([z.string(), JsonObjectSchema, z.array(z.unknown())]);
export type ToolUseResult = z.infer<typeof ToolUseResultSchema>;

/**
 * §3.3, §3.7, §3.8, §3.10: tool results (one line per result), interrupt markers, replayed user messages
 * (`isReplay`), the compaction summary (`isSynthetic`), a subagent's prompt (`parent_tool_use_id` set).
 */
export const CliUserMessageSchema = z.looseObject({
  type: z.literal('user'),
  message: UserApiMessageSchema,
  parent_tool_use_id: z.string().nullable(),
  session_id: z.string(),
  uuid: z.string().optional(),
  timestamp: z.string().optional(),
  isReplay: z.boolean().optional(),
  isSynthetic: z.boolean().optional(),
  tool_use_result: ToolUseResultSchema.optional(),
});
export type CliUserMessage = z.infer<typeof CliUserMessageSchema>;

/**
 * §3.9: only with `--include-partial-messages`. `event` is the raw Anthropic SSE event, typed by `type` only.
 * Partial text can be orphaned by a silent non-streaming retry (§3.6): drop it on `api_retry` or a new
 * `message_start`.
 */
export const CliStreamEventMessageSchema = z.looseObject({
  type: z.literal('stream_event'),
  event: z.looseObject({ type: z.string() }),
  parent_tool_use_id: z.string().nullable(),
  session_id: z.string(),
  uuid: z.string().optional(),
  ttft_ms: z.number().optional(),
});
export type CliStreamEventMessage = z.infer<typeof CliStreamEventMessageSchema>;

/**
 * A tool still running (measured on 2.1.331, where §3 lists it as never seen): every 30 s of a tool call (a Bash
 * command that waits) the CLI prints a heartbeat, `tool_use_id` `<the call's id>-heartbeat-<n>`, the call's id in
 * `parent_tool_use_id`, and the seconds since it began. Other kinds (a background command's progress, a subagent's
 * retry) share the type. Read leniently: only what Catalyst may show is typed.
 */
export const CliToolProgressMessageSchema = z.looseObject({
  type: z.literal('tool_progress'),
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: z.string().nullable(),
  elapsed_time_seconds: z.number(),
  heartbeat: z.boolean().optional(),
  session_id: z.string().optional(),
  uuid: z.string().optional(),
});
export type CliToolProgressMessage = z.infer<typeof CliToolProgressMessageSchema>;

/**
 * §3.9: the two raw SSE events inside a `stream_event` that Catalyst reads: `message_start` names the message
 * the following deltas belong to, and a text block's `content_block_delta` carries the next piece of its text.
 * Parsed on their own (safeParse), leniently; every other event (and delta type) is left alone.
 */
export const StreamMessageStartSchema = z.looseObject({
  type: z.literal('message_start'),
  message: z.looseObject({ id: z.string() }),
});
export type StreamMessageStart = z.infer<typeof StreamMessageStartSchema>;

export const StreamTextDeltaSchema = z.looseObject({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
});
export type StreamTextDelta = z.infer<typeof StreamTextDeltaSchema>;
