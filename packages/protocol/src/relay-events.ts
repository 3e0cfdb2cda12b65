import { z } from 'zod';
import { AskUserQuestionItemSchema } from './ask-user-question.ts';
import { CheckpointChangeSchema, CommitIdSchema } from './checkpoints.ts';
import { PermissionUpdateSchema } from './cli-control.ts';
import { CliMessageSchema } from './cli-output.ts';
import { CommandResultSchema } from './command-result.ts';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaIdSchema, IdeaStatusSchema, QuestionPolicySchema, RunModeSchema } from './idea.ts';

/**
 * What the server relays about an idea. Every event carries the idea, the run (when it belongs to one), a `seq`
 * that grows per idea and is never reused, and a timestamp. The same events form the idea's history on its host,
 * so a client that reconnects (or reopens days later) asks for what it missed with `sinceSeq`.
 */
const base = {
  ideaId: IdeaIdSchema,
  runId: z.string().optional(),
  seq: z.number().int().positive(),
  ts: z.iso.datetime(),
  /**
   * Present when the event was too large to relay whole (over MAX_RELAY_EVENT_BYTES of JSON): its longest strings
   * were cut further, each ending with `[… N bytes omitted]`. The full text is not kept by Catalyst (docs/protocol.md).
   */
  truncated: z.literal(true).optional(),
  /**
   * Where in the run's session output on the host the event came from (docs/architecture.md, "Exactly once"):
   * `line` and `part` for what the CLI printed (the run's `line`-th stdout line since its turn began, the
   * `part`-th event made of it), `stderr` for its error output (bytes read so far). A Catalyst that restarts
   * re-attaches from here, so no line is recorded twice. Clients ignore it.
   */
  origin: z
    .union([
      z.strictObject({ line: z.number().int().nonnegative(), part: z.number().int().nonnegative() }),
      z.strictObject({ stderr: z.number().int().nonnegative() }),
    ])
    .optional(),
};

/** One relay event's JSON never exceeds this (UTF-8 bytes); larger ones are cut and marked `truncated`. */
export const MAX_RELAY_EVENT_BYTES = 2 * 1024 * 1024;

export const RunOutcomeKindSchema = z.enum([
  'completed',
  'failed',
  'cancelled',
  'timed_out',
  'connection_lost',
]);
export type RunOutcomeKind = z.infer<typeof RunOutcomeKindSchema>;

export const ClaudeErrorSourceSchema = z.enum(['stderr', 'unparsable_line', 'line_too_long', 'protocol']);

export const QuestionClosedReasonSchema = z.enum(['answered', 'dismissed', 'timed_out', 'cancelled']);
export type QuestionClosedReason = z.infer<typeof QuestionClosedReasonSchema>;

export const PermissionClosedReasonSchema = z.enum([
  'allowed',
  'denied',
  'withdrawn',
  'cancelled',
  'timed_out',
]);
export type PermissionClosedReason = z.infer<typeof PermissionClosedReasonSchema>;

export const AnswerSourceSchema = z.enum(['human', 'auto']);
export type AnswerSource = z.infer<typeof AnswerSourceSchema>;

/** An autopilot's step as it was asked for (issue 12): a chat or build message. */
export const AutopilotStepInputSchema = z.strictObject({
  mode: RunModeSchema,
  message: z.string().min(1).max(100_000),
});
/**
 * A step as the history keeps it: with the id a person edits, moves or removes it by while it waits (issue 30).
 * Steps of autopilots started before ids existed have none: their view names them by their place (`step-<n>`).
 */
export const QueuedStepSchema = AutopilotStepInputSchema.extend({
  id: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .optional(),
});
export type QueuedStep = z.infer<typeof QueuedStepSchema>;
/**
 * `paused`: the step was stopped mid-way by its budget (the CLI's `--max-budget-usd`); once resumed it goes on in
 * its session with a short "continue" message.
 */
export const AutopilotStepStateSchema = z.enum([
  'pending',
  'running',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'skipped',
]);
export type AutopilotStepState = z.infer<typeof AutopilotStepStateSchema>;
/** `paused`: it waits for a person (its budget reached, or, for a queue, a step that failed or was cancelled). */
export const AutopilotStateSchema = z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']);
export type AutopilotState = z.infer<typeof AutopilotStateSchema>;
/**
 * An autopilot is a queue of next messages with its policies (issue 30). `queue`: the messages a person sent while
 * the idea was busy (the idea's question policy, no budget of its own unless one is set, paused by a step that
 * fails or is cancelled); `autopilot`: started as one (its own question policy, budget and stop on failure).
 */
export const QueueKindSchema = z.enum(['autopilot', 'queue']);
export type QueueKind = z.infer<typeof QueueKindSchema>;
/** Why a queue waits: its budget (or the idea's) is spent, or its last step failed or was cancelled. */
export const PauseReasonSchema = z.enum(['budget', 'failed', 'cancelled']);
export type PauseReason = z.infer<typeof PauseReasonSchema>;
export const MAX_AUTOPILOT_STEPS = 50;
/** The questions Claude asked in a step (or a whole autopilot), and how they were answered. */
export const QuestionTotalsSchema = z.strictObject({
  questionsAsked: z.number().int().nonnegative(),
  questionsAnsweredAutomatically: z.number().int().nonnegative(),
  autoAnswerRetries: z.number().int().nonnegative(),
  /** What the answering model cost. */
  auxiliaryCostUsd: z.number().nonnegative(),
});
export type QuestionTotals = z.infer<typeof QuestionTotalsSchema>;
const autopilotError = z.strictObject({ code: ErrorCodeSchema, message: z.string() });

/** An AskUserQuestion waiting for an answer (protocol §8.3); `questionId` is the CLI's request id. */
export const QuestionEventSchema = z.strictObject({
  ...base,
  type: z.literal('claude:question'),
  questionId: z.string(),
  questions: z.array(AskUserQuestionItemSchema),
  askedAt: z.iso.datetime(),
});
export type QuestionEvent = z.infer<typeof QuestionEventSchema>;

export const RelayEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...base,
    type: z.literal('run:started'),
    mode: RunModeSchema,
    message: z.string(),
    /**
     * The job on the host the run's claude lives in (a session, as the VM names it), and the byte offsets of its
     * stdout and stderr where this run's turn began: what a restarted Catalyst re-attaches to (docs/architecture.md,
     * "Runs in jobs on the host").
     */
    session: z
      .strictObject({
        id: z.string().regex(/^[a-z0-9-]{8,64}$/),
        stdout: z.number().int().nonnegative(),
        stderr: z.number().int().nonnegative(),
      })
      .optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:system'),
    sessionId: z.string(),
    model: z.string(),
    cwd: z.string(),
    tools: z.array(z.string()),
    slashCommands: z.array(z.string()),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:text'),
    text: z.string(),
    messageId: z.string(),
    parentToolUseId: z.string().nullable(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:thinking'),
    thinking: z.string(),
    messageId: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:tool_use'),
    toolUseId: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    parentToolUseId: z.string().nullable(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:tool_result'),
    toolUseId: z.string(),
    /** Text of the result; array contents are joined, other blocks summarised. */
    content: z.string(),
    isError: z.boolean(),
  }),
  /** Anything else the CLI sent (api_retry, task_*, control traffic, unknown lines), passed through typed. */
  z.strictObject({ ...base, type: z.literal('claude:event'), message: CliMessageSchema }),
  z.strictObject({ ...base, type: z.literal('claude:result'), result: CommandResultSchema }),
  z.strictObject({
    ...base,
    type: z.literal('claude:error'),
    source: ClaudeErrorSourceSchema,
    text: z.string(),
  }),
  QuestionEventSchema,
  z.strictObject({
    ...base,
    type: z.literal('claude:question_answered'),
    questionId: z.string(),
    answers: z.record(z.string(), z.string()),
    source: AnswerSourceSchema,
    /** Who answered: "person" for a browser, the model's name for an automatic answer. */
    by: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:question_closed'),
    questionId: z.string(),
    reason: QuestionClosedReasonSchema,
  }),
  /** A tool call waiting for a person's allow or deny (permissionPolicy `ask`, protocol §8.2). */
  z.strictObject({
    ...base,
    type: z.literal('claude:permission_request'),
    requestId: z.string(),
    toolName: z.string(),
    input: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    suggestions: z.array(PermissionUpdateSchema).optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('claude:permission_closed'),
    requestId: z.string(),
    reason: PermissionClosedReasonSchema,
  }),
  z.strictObject({ ...base, type: z.literal('idea:status'), status: IdeaStatusSchema }),
  /**
   * The CLI no longer had the idea's session (`--resume` answered "No conversation found"): this run started a new
   * session in the same project, with a recap of the conversation from this history (docs/protocol.md, Runs).
   */
  z.strictObject({ ...base, type: z.literal('run:session_replaced'), previousSessionId: z.string() }),
  /**
   * The run's connection to its host dropped; Claude goes on in its job on the host, and Catalyst reconnects
   * with backoff (docs/architecture.md, "Runs in jobs on the host"). `host` is the host's label.
   */
  z.strictObject({ ...base, type: z.literal('run:detached'), host: z.string(), reason: z.string() }),
  /** Catalyst is attached to the run's session again; the output continues from where it was. */
  z.strictObject({ ...base, type: z.literal('run:attached'), host: z.string() }),
  /** An autopilot's steps run one after the other, each an ordinary run (its `runId` on the step's events). */
  z.strictObject({
    ...base,
    type: z.literal('autopilot:started'),
    autopilotId: z.string(),
    /** Absent: an autopilot (as every one before issue 30). */
    kind: QueueKindSchema.optional(),
    steps: z.array(QueuedStepSchema).min(1).max(MAX_AUTOPILOT_STEPS),
    questionPolicy: QuestionPolicySchema,
    stopOnFailure: z.boolean(),
    maxBudgetUsd: z.number().positive().optional(),
  }),
  /** The steps still waiting, as a person left them (added, edited, moved or removed): they replace the waiting ones. */
  z.strictObject({
    ...base,
    type: z.literal('autopilot:queue_changed'),
    autopilotId: z.string(),
    pending: z.array(QueuedStepSchema).max(MAX_AUTOPILOT_STEPS),
  }),
  /** Its budget was set, raised or removed (null). */
  z.strictObject({
    ...base,
    type: z.literal('autopilot:budget_changed'),
    autopilotId: z.string(),
    maxBudgetUsd: z.number().positive().nullable(),
  }),
  /** It waits for a person; `message` says why in a sentence (spent and cap, for a budget). */
  z.strictObject({
    ...base,
    type: z.literal('autopilot:paused'),
    autopilotId: z.string(),
    reason: PauseReasonSchema,
    message: z.string(),
  }),
  /** A person resumed it (`oneMoreStep`: one step runs past its budget, then it pauses again). */
  z.strictObject({
    ...base,
    type: z.literal('autopilot:resumed'),
    autopilotId: z.string(),
    oneMoreStep: z.boolean().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('autopilot:step_started'),
    autopilotId: z.string(),
    index: z.number().int().nonnegative(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('autopilot:step_ended'),
    autopilotId: z.string(),
    index: z.number().int().nonnegative(),
    state: AutopilotStepStateSchema,
    result: CommandResultSchema.optional(),
    error: autopilotError.optional(),
    questions: QuestionTotalsSchema.optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('autopilot:ended'),
    autopilotId: z.string(),
    state: AutopilotStateSchema,
    costUsd: z.number().nonnegative(),
    error: autopilotError.optional(),
  }),
  /**
   * A checkpoint of the idea's `project/` (checkpoints.ts): made after a build run (its `runId`, before its
   * `run:ended`), or before the idea's first build, or of changes made outside a build before a restore.
   */
  z.strictObject({ ...base, type: z.literal('checkpoint:created'), ...CheckpointChangeSchema.shape }),
  /** The project was restored to `restoredTo`: a new commit, so the restore can be undone too. */
  z.strictObject({ ...base, type: z.literal('checkpoint:restored'), ...CheckpointChangeSchema.shape }),
  /** The host has no git: builds are not checkpointed there (said once per idea). */
  z.strictObject({ ...base, type: z.literal('checkpoint:unavailable'), reason: z.string() }),
  /**
   * The review comments of the checkpoint `commit` changed (issue 30: one added, edited, deleted, or the review
   * sent): a page showing that checkpoint's review asks for its comments again. Not part of the conversation.
   */
  z.strictObject({ ...base, type: z.literal('review:changed'), commit: CommitIdSchema }),
  /**
   * A question aside (issue 30): asked of a read-only fork of the idea's Claude session while a run goes or not;
   * never part of a run (no `runId`) nor of the conversation. Its own thread on the page (docs/protocol.md, Asides).
   */
  z.strictObject({
    ...base,
    type: z.literal('aside:asked'),
    asideId: z.string(),
    question: z.string(),
    model: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('aside:answered'),
    asideId: z.string(),
    text: z.string(),
    costUsd: z.number().nonnegative(),
    durationMs: z.number().nonnegative(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('aside:failed'),
    asideId: z.string(),
    error: z.strictObject({ code: ErrorCodeSchema, message: z.string() }),
    /** What the fork cost before it failed, when its result said. */
    costUsd: z.number().nonnegative().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('run:ended'),
    outcome: RunOutcomeKindSchema,
    result: CommandResultSchema.optional(),
    error: z.strictObject({ code: ErrorCodeSchema, message: z.string() }).optional(),
  }),
]);
export type RelayEvent = z.infer<typeof RelayEventSchema>;
export type RelayEventType = RelayEvent['type'];
/** An event before the history assigns its `seq` and time. */
export type RelayEventDraft = RelayEvent extends infer E
  ? E extends RelayEvent
    ? Omit<E, 'seq' | 'ts'>
    : never
  : never;
