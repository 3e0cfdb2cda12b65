import type { PathParam } from '@catalyst/protocol';
import type { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../core/issue-summary.ts';

/**
 * The REST boundary: what arrives in a URL, a query string or a body is parsed here, before any service call,
 * and a failure becomes INVALID_ARGUMENT with the problems in one sentence.
 */

/**
 * A value from a URL's path, checked against its route's schema (protocol api-contract.ts): `../x`, an encoded slash
 * or a NUL never reaches the service (or a path on a host). A bad one is refused with the route's sentence.
 */
export function parsePathValue<T>(param: PathParam<T>, text: string): T {
  const parsed = param.schema.safeParse(text);
  if (!parsed.success) throw new CatalystError('INVALID_ARGUMENT', param.invalid(text));
  return parsed.data;
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined) {
    throw new CatalystError('INVALID_ARGUMENT', 'Send a JSON body with Content-Type: application/json.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `The request body is not valid: ${summarizeIssues(parsed.error.issues)}.`,
    );
  }
  return parsed.data;
}

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `The query string is not valid: ${summarizeIssues(parsed.error.issues)}.`,
    );
  }
  return parsed.data;
}
