import { MAX_PUSH_PAYLOAD_BYTES, PushPayloadSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../core/issue-summary.ts';

/**
 * The push payload's schema is the protocol's (push.ts), shared with the service worker. All a push may carry (issue 29): the idea's title, one sentence, the idea's page, a tag, and at most two
 * actions. Strict: no field beyond these, so no transcript, file contents or secret can ride along, however the
 * caller builds it. A push crosses the push service (a third party, which sees only ciphertext, but keeps it for
 * the TTL) and lands on a lock screen, so this is also all a lost phone shows.
 */

/** The payload's JSON, checked; INVALID_ARGUMENT saying why when it is not a push payload or is too big. */
export function encodePushPayload(payload: unknown): string {
  const parsed = PushPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `not a push payload: ${summarizeIssues(parsed.error.issues)}`,
    );
  }
  const text = JSON.stringify(parsed.data);
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_PUSH_PAYLOAD_BYTES) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `a push payload is ${size} bytes, over the ${MAX_PUSH_PAYLOAD_BYTES} a push may hold`,
    );
  }
  return text;
}
