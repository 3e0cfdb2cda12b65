import type { ErrorCode } from '@catalyst/protocol';

/**
 * What can go wrong in the command-line client: the API's own codes (its sentence is shown as is), and the
 * client's: a bad command line, no token, Catalyst unreachable or gone mid-run, an answer it cannot read.
 */
export type CliErrorCode =
  | ErrorCode
  | 'USAGE'
  | 'TOKEN_MISSING'
  | 'UNREACHABLE'
  | 'CONNECTION_LOST'
  | 'UNEXPECTED_RESPONSE'
  | 'IDEA_AMBIGUOUS';

/** The one error class of the client: a code, a sentence for a person, and what caused it. */
export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
  }
}

export function isCliError(value: unknown): value is CliError {
  return value instanceof CliError;
}

export function usageError(message: string): CliError {
  return new CliError('USAGE', message);
}
