import { CatalystError } from '../../core/catalyst-error.ts';

/**
 * ssh2 reports failures as plain Errors with untyped extras (`level`, `code`, `reason`); this narrows them into
 * CatalystErrors without casts.
 */

/** Handshake failures that MaxStartups throttling or a busy server cause, worth a retry with backoff (§4, §5). */
const RETRYABLE_MESSAGES = ['Connection lost before handshake', 'Timed out while waiting for handshake'];
const RETRYABLE_CODES = ['ECONNRESET'];

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function levelOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'level' in error ? error.level : undefined;
}

export function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

export function classifyConnectError(error: unknown, label: string): CatalystError {
  const message = describeError(error);
  const level = levelOf(error);
  const code = codeOf(error);
  const details = { host: label, level, code };
  if (level === 'client-authentication') {
    return new CatalystError(
      'SSH_AUTH_FAILED',
      `${label} refused the key (${message}); check the user name and that the public key is in its authorized_keys`,
      { cause: error, details },
    );
  }
  const isRetryable =
    RETRYABLE_MESSAGES.includes(message) || (typeof code === 'string' && RETRYABLE_CODES.includes(code));
  return new CatalystError('SSH_CONNECT_FAILED', `cannot connect to ${label}: ${message}`, {
    cause: error,
    details: { ...details, retryable: isRetryable },
  });
}

export function isRetryableConnectError(error: unknown): boolean {
  return (
    error instanceof CatalystError &&
    error.code === 'SSH_CONNECT_FAILED' &&
    error.details['retryable'] === true
  );
}
