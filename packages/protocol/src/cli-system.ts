import { z } from 'zod';

/**
 * `type:"system"` lines of the CLI's stdout (§3), discriminated on `subtype`. Only the fields the doc shows and
 * Catalyst reads are typed; every other field is kept (loose objects). Enum-like values the CLI owns (`status`,
 * `task_type`, `trigger`, …) are plain strings so a new value does not turn a known line into an unknown one.
 */

/** "Almost every line has `session_id` and `uuid`" (§3); §3.10's failed-compact status line shows neither. */
const lineIds = {
  session_id: z.string().optional(),
  uuid: z.string().optional(),
};

/** §3.1: printed at the start of every turn, not once per process. */
export const SystemInitMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  session_id: z.string(),
  uuid: z.string().optional(),
  cwd: z.string(),
  model: z.string(),
  permissionMode: z.string(),
  tools: z.array(z.string()),
  claude_code_version: z.string().optional(),
});
export type SystemInitMessage = z.infer<typeof SystemInitMessageSchema>;

/** §3.6: `error_status` is null for connection errors and timeouts. */
export const SystemApiRetryMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  ...lineIds,
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.number().nullable(),
  error: z.string(),
});
export type SystemApiRetryMessage = z.infer<typeof SystemApiRetryMessageSchema>;

/**
 * §3.9, §3.10, §8.5: `status` is "requesting", "compacting" or null (with `compact_result`). The line announcing a
 * permission-mode change was only described by its `permissionMode`, so `status` may be absent there.
 */
export const SystemStatusMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('status'),
  ...lineIds,
  status: z.string().nullable().optional(),
  compact_result: z.string().optional(),
  compact_error: z.string().optional(),
  permissionMode: z.string().optional(),
});
export type SystemStatusMessage = z.infer<typeof SystemStatusMessageSchema>;

export const SystemThinkingTokensMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('thinking_tokens'),
  ...lineIds,
  estimated_tokens: z.number(),
  estimated_tokens_delta: z.number(),
});
export type SystemThinkingTokensMessage = z.infer<typeof SystemThinkingTokensMessageSchema>;

/** §3.8: `task_type` is "local_bash" (a Bash still running after 2–3 s) or "local_agent" (a subagent). */
export const SystemTaskStartedMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('task_started'),
  ...lineIds,
  task_id: z.string(),
  tool_use_id: z.string(),
  description: z.string(),
  task_type: z.string(),
  subagent_type: z.string().optional(),
  prompt: z.string().optional(),
});
export type SystemTaskStartedMessage = z.infer<typeof SystemTaskStartedMessageSchema>;

export const SystemTaskUpdatedMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('task_updated'),
  ...lineIds,
  task_id: z.string(),
  patch: z.looseObject({
    status: z.string().optional(),
    end_time: z.number().optional(),
  }),
});
export type SystemTaskUpdatedMessage = z.infer<typeof SystemTaskUpdatedMessageSchema>;

/** §3.8: `status` is "completed" or "stopped"; `usage` only for subagents. */
export const SystemTaskNotificationMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('task_notification'),
  ...lineIds,
  task_id: z.string(),
  tool_use_id: z.string(),
  status: z.string(),
  output_file: z.string(),
  summary: z.string(),
  usage: z
    .looseObject({
      total_tokens: z.number().optional(),
      tool_uses: z.number().optional(),
      duration_ms: z.number().optional(),
    })
    .optional(),
});
export type SystemTaskNotificationMessage = z.infer<typeof SystemTaskNotificationMessageSchema>;

/**
 * The background tasks now running, after one was added or ended (measured on 2.1.331: a Bash command still running
 * after its 120 s limit is moved to the background, and this line lists it; not in the reference's §3).
 */
export const SystemBackgroundTasksChangedMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('background_tasks_changed'),
  ...lineIds,
  tasks: z.array(
    z.looseObject({
      task_id: z.string(),
      task_type: z.string().optional(),
      description: z.string().optional(),
    }),
  ),
});
export type SystemBackgroundTasksChangedMessage = z.infer<typeof SystemBackgroundTasksChangedMessageSchema>;

/** §3.10: after a successful `/compact`; `trigger` is "manual" or "auto". */
export const SystemCompactBoundaryMessageSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('compact_boundary'),
  ...lineIds,
  compact_metadata: z.looseObject({
    trigger: z.string(),
    pre_tokens: z.number(),
    post_tokens: z.number().optional(),
    duration_ms: z.number().optional(),
  }),
});
export type SystemCompactBoundaryMessage = z.infer<typeof SystemCompactBoundaryMessageSchema>;

export const CliSystemMessageSchema = z.discriminatedUnion('subtype', [
  SystemInitMessageSchema,
  SystemApiRetryMessageSchema,
  SystemStatusMessageSchema,
  SystemThinkingTokensMessageSchema,
  SystemTaskStartedMessageSchema,
  SystemTaskUpdatedMessageSchema,
  SystemTaskNotificationMessageSchema,
  SystemBackgroundTasksChangedMessageSchema,
  SystemCompactBoundaryMessageSchema,
]);
export type CliSystemMessage = z.infer<typeof CliSystemMessageSchema>;
