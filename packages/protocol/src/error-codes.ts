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
  'SSH_HOST_KEY_UNKNOWN',
  'SSH_HOST_KEY_REVOKED',
  // An ~/.ssh/config (or a file it includes) that OpenSSH would refuse, named by file and line.
  'SSH_CONFIG_INVALID',
  // An ~/.ssh/config that asks for something Catalyst does not do (Match exec without the opt-in, ~otheruser).
  'SSH_CONFIG_UNSUPPORTED',
  'CONNECTION_LOST',
  'HOST_TIMED_OUT',
  'IDEA_NOT_FOUND',
  'HOST_NOT_FOUND',
  'HOST_UNAVAILABLE',
  // Hosts managed in the app (issue 28): a name taken, a host from CATALYST_CONFIG_FILE, a host that holds ideas.
  'HOST_EXISTS',
  'HOST_READ_ONLY',
  'HOST_HAS_IDEAS',
  // A host key confirmation whose fingerprint is not the one the host presented.
  'FINGERPRINT_MISMATCH',
  'RUN_IN_PROGRESS',
  'NO_RUN',
  'RUN_NOT_FOUND',
  'AUTOPILOT_NOT_FOUND',
  // The queue of next messages (issue 30): no such waiting step; nothing queued, running or paused to act on.
  'QUEUE_STEP_NOT_FOUND',
  'NO_QUEUE',
  'CHECKPOINT_NOT_FOUND',
  'CHECKPOINT_FAILED',
  // Review comments on a checkpoint's diff (issue 30): no such comment of that checkpoint; one already sent.
  'REVIEW_COMMENT_NOT_FOUND',
  'REVIEW_COMMENT_SENT',
  'INVALID_PATH',
  'PATH_NOT_FOUND',
  'PREVIEW_NOT_CONFIGURED',
  'PREVIEW_PORT_NOT_LISTENING',
  'PORT_UNREACHABLE',
  'BUDGET_EXCEEDED',
  // An aside (issue 30) needs the idea's Claude session: the idea has never run.
  'NO_SESSION',
  // An idea has as many asides going as it may (MAX_ASIDES_PER_IDEA).
  'TOO_MANY_ASIDES',
  // A terminal (issue 31) that is not open here (ended, never was, or another idea's); an idea with
  // MAX_TERMINALS_PER_IDEA open, or a host with its share of terminals open (a quarter of its run slots).
  'TERMINAL_NOT_FOUND',
  'TOO_MANY_TERMINALS',
  'RUN_TIMED_OUT',
  'HOST_DISK_FULL',
  'INVALID_FRAME',
  'FRAME_TOO_LARGE',
  'UNAUTHORIZED',
  // A pairing code that is unknown, used or expired: one code for all three, so an answer tells nothing more.
  'PAIRING_CODE_REFUSED',
  'FORBIDDEN_ORIGIN',
  'CONFIG_INVALID',
  'HISTORY_CORRUPT',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
