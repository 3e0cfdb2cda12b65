import { IdeaIdSchema, type IdeaId } from '@catalyst/protocol';
import type { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from './issue-summary.ts';

/**
 * The REST boundary: what arrives in a URL, a query string or a body is parsed here, before any service call,
 * and a failure becomes INVALID_ARGUMENT with the problems in one sentence.
 */

/**
 * An id from a URL, checked against its schema: `../x`, an encoded slash or a NUL never reaches the service (or a
 * path on a host). `sentence` says what such an id looks like.
 */
export function parseUrlId(schema: z.ZodType<string>, value: unknown, sentence: string): string {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CatalystError('INVALID_ARGUMENT', sentence);
  return parsed.data;
}

export function parseIdeaId(value: unknown): IdeaId {
  return parseUrlId(
    IdeaIdSchema,
    value,
    'The idea id in the URL is not valid: ids look like idea- followed by 16 lower-case letters and digits.',
  );
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
