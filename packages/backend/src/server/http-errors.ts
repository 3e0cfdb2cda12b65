import { statusForCode, type ErrorCode } from '@catalyst/protocol';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isCatalystError } from '../core/catalyst-error.ts';

/**
 * Errors as the REST API returns them: `{ error: { code, message } }` (and `runId`, `ideaCount` where they apply), the status derived from the code. A
 * CatalystError's message is a sentence written for people and goes out as is; anything else is a bug, answered
 * with a generic sentence while its stack goes to the server's log only.
 */

export interface ErrorBody {
  error: { code: ErrorCode; message: string; runId?: string; ideaCount?: number };
}

export interface HttpError {
  code: ErrorCode;
  message: string;
  /** The run a refusal is about (RUN_IN_PROGRESS, NO_RUN). */
  runId?: string;
  /** How many ideas the host holds (HOST_HAS_IDEAS). */
  ideaCount?: number;
  /** Only where the code alone does not say it (a 413 body, a 404 route). */
  status?: number;
}

export const JSON_BODY_LIMIT_BYTES = 256 * 1024;
export const INTERNAL_MESSAGE = 'Something went wrong inside Catalyst; the details are in its log.';

export function sendError(response: Response, error: HttpError): void {
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.runId === undefined ? {} : { runId: error.runId }),
      ...(error.ideaCount === undefined ? {} : { ideaCount: error.ideaCount }),
    },
  };
  response.status(error.status ?? statusForCode(error.code)).json(body);
}

/** What body-parser throws: `type` names the failure, `status` is the 4xx it suggests, `limit` the bytes allowed. */
const BodyParserErrorSchema = z.object({
  status: z.int().min(400).max(499),
  type: z.string().optional(),
  limit: z.int().positive().optional(),
});

const BODY_PARSER_MESSAGES: Readonly<Record<string, string>> = {
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': `The request body is larger than ${JSON_BODY_LIMIT_BYTES / 1024} KiB.`,
  'charset.unsupported': 'The request body must be JSON in UTF-8.',
  'encoding.unsupported': 'The request body’s Content-Encoding is not supported.',
};

/** A thrown value → the error to answer, and whether it is a bug worth a stack in the log. */
export function toHttpError(error: unknown): HttpError & { isBug: boolean } {
  if (isCatalystError(error)) {
    // A host that cannot be reached (503) is the world, not a bug: its sentence is logged, without a stack.
    // Only these details go out: the rest may name paths and causes meant for the log.
    const { runId, ideas } = error.details;
    return {
      code: error.code,
      message: error.message,
      ...(typeof runId === 'string' ? { runId } : {}),
      ...(error.code === 'HOST_HAS_IDEAS' && typeof ideas === 'number' ? { ideaCount: ideas } : {}),
      isBug: statusForCode(error.code) === 500,
    };
  }
  const clientError = BodyParserErrorSchema.safeParse(error);
  if (clientError.success) {
    const { status, type, limit } = clientError.data;
    // The login routes take 4 KiB, the API 256 KiB: the sentence names the limit of the route that refused.
    const message =
      type === 'entity.too.large' && limit !== undefined
        ? `The request body is larger than ${String(Math.ceil(limit / 1024))} KiB.`
        : ((type === undefined ? undefined : BODY_PARSER_MESSAGES[type]) ?? 'The request could not be read.');
    return { code: 'INVALID_ARGUMENT', message, status, isBug: false };
  }
  return { code: 'INTERNAL', message: INTERNAL_MESSAGE, isBug: true };
}

export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  // Four parameters, though `_next` is unused: express recognises an error handler by its arity.
  return (error: unknown, request, response, _next) => {
    const answer = toHttpError(error);
    if (answer.isBug) {
      logger.error({ err: error, method: request.method, path: request.path }, 'request failed');
    } else if (statusForCode(answer.code) >= 500) {
      logger.warn({ code: answer.code, method: request.method, path: request.path }, answer.message);
    }
    if (response.headersSent) {
      // Too late for an error body: cut the response so the client sees it broken rather than complete.
      request.socket.destroy();
      return;
    }
    const { isBug: _isBug, ...httpError } = answer;
    sendError(response, httpError);
  };
}
