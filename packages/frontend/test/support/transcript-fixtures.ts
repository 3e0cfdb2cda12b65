import {
  RelayEventSchema,
  TextDeltaFrameSchema,
  TextResetFrameSchema,
  type RelayEvent,
  type TextDeltaFrame,
  type TextResetFrame,
} from '@catalyst/protocol';

/**
 * Test fixtures for the transcript: every event goes through the protocol's own schema, so a fixture that drifts
 * from the wire shape fails loudly instead of testing a shape the server never sends.
 */

export const IDEA_ID = 'idea-0123456789abcdef';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

type WithoutIds<E> = E extends RelayEvent ? Omit<E, 'ideaId' | 'seq' | 'ts'> & { ts?: string } : never;
export type EventFields = WithoutIds<RelayEvent>;

/** An event with this `seq`; its time is T0 + seq seconds unless `ts` is given. */
export function relayEvent(seq: number, fields: EventFields): RelayEvent {
  return RelayEventSchema.parse({
    ideaId: IDEA_ID,
    seq,
    ts: new Date(T0 + seq * 1000).toISOString(),
    ...fields,
  });
}

export function textDelta(
  runId: string,
  messageId: string,
  text: string,
  options: { index?: number; parentToolUseId?: string | null } = {},
): TextDeltaFrame {
  const { index = 0, parentToolUseId = null } = options;
  return TextDeltaFrameSchema.parse({
    type: 'claude:text_delta',
    ideaId: IDEA_ID,
    runId,
    messageId,
    index,
    text,
    parentToolUseId,
  });
}

export function textReset(runId: string): TextResetFrame {
  return TextResetFrameSchema.parse({ type: 'claude:text_reset', ideaId: IDEA_ID, runId });
}

export const started = (seq: number, runId: string, message: string, mode: 'chat' | 'build' = 'chat') =>
  relayEvent(seq, { type: 'run:started', runId, mode, message });

export const text = (seq: number, runId: string, messageId: string, body: string) =>
  relayEvent(seq, { type: 'claude:text', runId, text: body, messageId, parentToolUseId: null });

export const toolUse = (
  seq: number,
  runId: string,
  toolUseId: string,
  name: string,
  input: Record<string, unknown>,
) => relayEvent(seq, { type: 'claude:tool_use', runId, toolUseId, name, input, parentToolUseId: null });

export const toolResult = (seq: number, runId: string, toolUseId: string, content: string, isError = false) =>
  relayEvent(seq, { type: 'claude:tool_result', runId, toolUseId, content, isError });

export function commandResult(fields: {
  durationMs: number;
  numTurns: number;
  costUsd: number;
  error?: string;
}) {
  return {
    success: fields.error === undefined,
    subtype: fields.error === undefined ? 'success' : 'error_during_execution',
    sessionId: 'session-1',
    permissionDenials: [],
    ...fields,
  };
}
