import type { ErrorCode } from '@catalyst/protocol';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isCatalystError } from '../core/catalyst-error.ts';

/**
 * Errors as the REST API returns them: `{ error: { code, message } }`, the status derived from the code. A
 * CatalystError's message is a sentence written for people and goes out as is; anything else is a bug, answered
 * with a generic sentence while its stack goes to the server's log only.
 */

export interface ErrorBody {
  error: { code: ErrorCode; message: string; runId?: string };
}

export interface HttpError {
  code: ErrorCode;
  message: string;
  /** The run a refusal is about (RUN_IN_PROGRESS, NO_RUN). */
  runId?: string;
  /** Only where the code alone does not say it (a 413 body, a 404 route). */
  status?: number;
}

export const JSON_BODY_LIMIT_BYTES = 256 * 1024;
export const INTERNAL_MESSAGE = 'Something went wrong inside Catalyst; the details are in its log.';

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  UNSAFE_ARGUMENT: 400,
  INVALID_FRAME: 400,
  COMMAND_TOO_LONG: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_ORIGIN: 403,
  IDEA_NOT_FOUND: 404,
  HOST_NOT_FOUND: 404,
  QUESTION_NOT_FOUND: 404,
  PERMISSION_REQUEST_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  AUTOPILOT_NOT_FOUND: 404,
  CHECKPOINT_NOT_FOUND: 404,
  INVALID_PATH: 400,
  PATH_NOT_FOUND: 404,
  PREVIEW_NOT_CONFIGURED: 409,
  PREVIEW_PORT_NOT_LISTENING: 404,
  PORT_UNREACHABLE: 502,
  RUN_IN_PROGRESS: 409,
  NO_RUN: 409,
  SESSION_BUSY: 409,
  BUDGET_EXCEEDED: 409,
  FRAME_TOO_LARGE: 413,
  HOST_UNAVAILABLE: 503,
  SSH_CONNECT_FAILED: 503,
  SSH_AUTH_FAILED: 503,
  SSH_HOST_KEY_MISMATCH: 503,
  SSH_HOST_KEY_MISSING: 503,
  CONNECTION_LOST: 503,
  // The host took a file call but did not answer it in time (a FIFO's open(), a hung disk): a gateway's timeout.
  HOST_TIMED_OUT: 504,
};

/** 500 for every code without a more precise status. */
export function statusForCode(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}

export function sendError(response: Response, error: HttpError): void {
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.runId === undefined ? {} : { runId: error.runId }),
    },
  };
  response.status(error.status ?? statusForCode(error.code)).json(body);
}

/** What body-parser throws: `type` names the failure, `status` is the 4xx it suggests. */
const BodyParserErrorSchema = z.object({ status: z.int().min(400).max(499), type: z.string().optional() });

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
    const { runId } = error.details;
    return {
      code: error.code,
      message: error.message,
      ...(typeof runId === 'string' ? { runId } : {}),
      isBug: statusForCode(error.code) === 500,
    };
  }
  const clientError = BodyParserErrorSchema.safeParse(error);
  if (clientError.success) {
    const { status, type } = clientError.data;
    const message =
      (type === undefined ? undefined : BODY_PARSER_MESSAGES[type]) ?? 'The request could not be read.';
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
