import { z } from 'zod';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaIdSchema, RunModeSchema } from './idea.ts';
import { RelayEventSchema } from './relay-events.ts';

/**
 * The WebSocket at `/ws`. Every inbound frame is parsed with `ClientFrameSchema` before use; a frame that fails
 * gets an `error` frame back and the connection stays open. `requestId` (optional, chosen by the client) comes
 * back on the error a frame caused.
 */
export const MAX_CLIENT_FRAME_BYTES = 256 * 1024;
export const MAX_MESSAGE_CHARS = 100_000;

const requestId = z.string().min(1).max(100).optional();
const message = z.string().min(1).max(MAX_MESSAGE_CHARS);

export const ClientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('subscribe'),
    ideaId: IdeaIdSchema,
    /** The last `seq` the client has; the server replays every later event, then streams live. */
    sinceSeq: z.number().int().nonnegative().optional(),
    requestId,
  }),
  z.strictObject({ type: z.literal('unsubscribe'), ideaId: IdeaIdSchema, requestId }),
  /**
   * The idea this tab shows while it is visible, or null (hidden, or another page): a device that sees an idea gets
   * no push about it (issue 29). A tab sends it when it changes; the server forgets it when the socket closes.
   */
  z.strictObject({ type: z.literal('viewing'), ideaId: IdeaIdSchema.nullable(), requestId }),
  z.strictObject({ type: z.literal('chat'), ideaId: IdeaIdSchema, message, requestId }),
  z.strictObject({ type: z.literal('build'), ideaId: IdeaIdSchema, message, requestId }),
  z.strictObject({ type: z.literal('cancel'), ideaId: IdeaIdSchema, requestId }),
  /**
   * The mode the page's composer shows for the idea, sent when the page opens it and when the person switches
   * (issue 30): the server keeps a claude of that mode waiting for the next turn, so a switch costs no cold start.
   */
  z.strictObject({ type: z.literal('mode'), ideaId: IdeaIdSchema, mode: RunModeSchema, requestId }),
  /** Answers a pending `claude:question`: per question text, a label, free text ("Other"), or several labels. */
  z.strictObject({
    type: z.literal('answer'),
    ideaId: IdeaIdSchema,
    questionId: z.string().min(1).max(200),
    answers: z.record(
      z.string().max(MAX_MESSAGE_CHARS),
      z.union([z.string().max(MAX_MESSAGE_CHARS), z.array(z.string().max(MAX_MESSAGE_CHARS)).max(100)]),
    ),
    requestId,
  }),
  /** The person declines to answer: Claude is told so and goes on. */
  z.strictObject({
    type: z.literal('dismiss'),
    ideaId: IdeaIdSchema,
    questionId: z.string().min(1).max(200),
    requestId,
  }),
  /**
   * Answers a pending `claude:permission_request`; `remember` applies the CLI's suggested rules. Here `requestId`
   * is the permission request's id (required), and an error this frame causes echoes it.
   */
  z.strictObject({
    type: z.literal('permission'),
    ideaId: IdeaIdSchema,
    requestId: z.string().min(1).max(200),
    decision: z.enum(['allow', 'deny']),
    message: z.string().min(1).max(MAX_MESSAGE_CHARS).optional(),
    remember: z.boolean().optional(),
  }),
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export const ErrorFrameSchema = z.strictObject({
  type: z.literal('error'),
  code: ErrorCodeSchema,
  /** A sentence for a person; never a stack trace. */
  message: z.string(),
  requestId: z.string().optional(),
  ideaId: z.string().optional(),
});
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;

export const SubscribedFrameSchema = z.strictObject({
  type: z.literal('subscribed'),
  ideaId: IdeaIdSchema,
  /**
   * The `seq` of the newest event the replay holds, at the moment of subscribing (0 when the idea has none): a
   * client holding an event with this seq or a later one has caught up, and every later event comes live. Always
   * an event's seq, never the server's seq reservation: after a restart the next event's seq may skip far past it
   * (docs/protocol.md, `subscribe`), and a `sinceSeq` above `lastSeq` but within the reservation is not stale.
   */
  lastSeq: z.number().int().nonnegative(),
  running: z.boolean(),
  requestId: z.string().optional(),
  /**
   * The `sinceSeq` asked for was past every seq the server has shown or reserved (the history the client holds is
   * not the server's): the replay before this frame was the whole history, and the client keeps that replay in
   * place of every event it held before it (no second subscribe: the history is sent once).
   */
  reset: z.literal(true).optional(),
});
export type SubscribedFrame = z.infer<typeof SubscribedFrameSchema>;

/**
 * Text as the model writes it (the CLI's `--include-partial-messages` deltas), live only: no `seq`, never in the
 * history. The complete `claude:text` of the same `messageId` (which has a `seq`) replaces what the deltas built;
 * a client that missed deltas loses nothing but the animation. `index` is the content block within the message.
 * `claude:text_reset` means the model's attempt was abandoned (a retry): drop the partial text of that run.
 */
export const TextDeltaFrameSchema = z.strictObject({
  type: z.literal('claude:text_delta'),
  ideaId: IdeaIdSchema,
  runId: z.string(),
  messageId: z.string(),
  index: z.number().int().nonnegative(),
  text: z.string(),
  parentToolUseId: z.string().nullable(),
});
export type TextDeltaFrame = z.infer<typeof TextDeltaFrameSchema>;

export const TextResetFrameSchema = z.strictObject({
  type: z.literal('claude:text_reset'),
  ideaId: IdeaIdSchema,
  runId: z.string(),
});
export type TextResetFrame = z.infer<typeof TextResetFrameSchema>;

/** The frames that exist only on the wire, for whoever is subscribed at that moment: never stored, never replayed. */
export const LiveFrameSchema = z.discriminatedUnion('type', [TextDeltaFrameSchema, TextResetFrameSchema]);
export type LiveFrame = z.infer<typeof LiveFrameSchema>;

export const ServerFrameSchema = z.union([
  RelayEventSchema,
  ErrorFrameSchema,
  SubscribedFrameSchema,
  TextDeltaFrameSchema,
  TextResetFrameSchema,
]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;
