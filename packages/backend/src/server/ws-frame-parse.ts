import {
  ClientFrameSchema,
  IdeaIdSchema,
  MAX_CLIENT_FRAME_BYTES,
  type ClientFrame,
  type ErrorCode,
  type ErrorFrame,
} from '@catalyst/protocol';
import { z } from 'zod';
import { summarizeIssues } from '../core/issue-summary.ts';

/**
 * One inbound WebSocket message → a typed ClientFrame, or the error frame that answers it. Pure: the size is
 * checked before anything is decoded, and a frame that fails still has its `requestId` (and a valid `ideaId`)
 * echoed when they can be read, so the client can match the error to what it sent.
 */

export type FrameParseResult = { ok: true; frame: ClientFrame } | { ok: false; error: ErrorFrame };

const FRAME_TYPES: readonly string[] = ClientFrameSchema.options.map((option) => option.shape.type.value);

/** Read leniently from a frame that failed: whatever is not valid is simply not echoed. */
const EchoSchema = z.object({
  requestId: z.string().min(1).max(100).optional().catch(undefined),
  ideaId: IdeaIdSchema.optional().catch(undefined),
});

export function parseClientFrame(data: Buffer, isBinary: boolean): FrameParseResult {
  if (data.length > MAX_CLIENT_FRAME_BYTES) {
    const kib = (bytes: number) => Math.ceil(bytes / 1024);
    return fail(
      'FRAME_TOO_LARGE',
      `A frame may be at most ${kib(MAX_CLIENT_FRAME_BYTES)} KiB; this one was ${kib(data.length)} KiB, so it was ignored.`,
    );
  }
  if (isBinary) return fail('INVALID_FRAME', 'Frames are JSON text; a binary frame was ignored.');
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch {
    return fail('INVALID_FRAME', 'The frame is not valid JSON, so it was ignored.');
  }
  const parsed = ClientFrameSchema.safeParse(value);
  if (parsed.success) return { ok: true, frame: parsed.data };
  return fail('INVALID_FRAME', describeProblem(value, parsed.error), value);
}

function describeProblem(value: unknown, error: z.ZodError): string {
  const type = z.object({ type: z.string() }).safeParse(value);
  if (!type.success) {
    return `A frame must be a JSON object with a "type", one of: ${FRAME_TYPES.join(', ')}.`;
  }
  if (!FRAME_TYPES.includes(type.data.type)) {
    return `Unknown frame type ${JSON.stringify(type.data.type.slice(0, 40))}; expected one of: ${FRAME_TYPES.join(', ')}.`;
  }
  return `The ${type.data.type} frame is not valid: ${summarizeIssues(error.issues)}.`;
}

function fail(code: ErrorCode, message: string, value?: unknown): FrameParseResult {
  const echo = EchoSchema.safeParse(value);
  const { requestId, ideaId } = echo.success ? echo.data : {};
  return {
    ok: false,
    error: {
      type: 'error',
      code,
      message,
      ...(requestId === undefined ? {} : { requestId }),
      ...(ideaId === undefined ? {} : { ideaId }),
    },
  };
}
