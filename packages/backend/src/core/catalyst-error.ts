import type { ErrorCode } from '@catalyst/protocol';

/**
 * The one error class of the backend: a code from the closed union in protocol, a sentence a person can act on,
 * the cause, and the details that help (host, exit code, signal, stderr tail). Never a bare `Error`.
 */
export class CatalystError extends Error {
  override readonly name = 'CatalystError';
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

export function isCatalystError(value: unknown): value is CatalystError {
  return value instanceof CatalystError;
}
