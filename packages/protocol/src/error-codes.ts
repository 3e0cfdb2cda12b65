import { z } from 'zod';

/**
 * Every error Catalyst reports carries one of these codes. The list is closed: a new failure mode gets a new code
 * here, never a free-form string. Later issues (SSH, service, questions) extend it.
 */
export const ErrorCodeSchema = z.enum([
  'INVALID_ARGUMENT',
  'UNSAFE_ARGUMENT',
  'COMMAND_TOO_LONG',
  'CLI_NOT_FOUND',
  'CLI_FAILED',
  'LINE_TOO_LONG',
  'UNPARSABLE_LINE',
  'QUESTION_NOT_FOUND',
  'QUESTION_CANCELLED',
  'PERMISSION_REQUEST_NOT_FOUND',
  'AUTO_ANSWER_FAILED',
  'CWD_NOT_FOUND',
  'WRAPPER_UNSUPPORTED',
  'RUN_START_FAILED',
  'SESSION_BUSY',
  'SESSION_GONE',
  'RUN_INPUT_CLOSED',
  'FILE_NOT_FOUND',
  'PERMISSION_DENIED',
  'FILE_ERROR',
  'SSH_CONNECT_FAILED',
  'SSH_AUTH_FAILED',
  'SSH_HOST_KEY_MISSING',
  'SSH_HOST_KEY_MISMATCH',
  'CONNECTION_LOST',
  'IDEA_NOT_FOUND',
  'HOST_NOT_FOUND',
  'HOST_UNAVAILABLE',
  'RUN_IN_PROGRESS',
  'NO_RUN',
  'RUN_TIMED_OUT',
  'HOST_DISK_FULL',
  'INVALID_FRAME',
  'FRAME_TOO_LARGE',
  'UNAUTHORIZED',
  'FORBIDDEN_ORIGIN',
  'CONFIG_INVALID',
  'HISTORY_CORRUPT',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
