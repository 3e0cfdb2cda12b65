import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../server/issue-summary.ts';

/**
 * All a push may carry (issue 29): the idea's title, one sentence, the idea's page, a tag, and at most two
 * actions. Strict: no field beyond these, so no transcript, file contents or secret can ride along, however the
 * caller builds it. A push crosses the push service (a third party, which sees only ciphertext, but keeps it for
 * the TTL) and lands on a lock screen, so this is also all a lost phone shows.
 */

/** RFC 8291 allows 3993 octets of plaintext in a 4096-octet message; this leaves room to spare. */
export const MAX_PUSH_PAYLOAD_BYTES = 3072;

const TokenSchema = z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, 'must be 1 to 64 letters, digits or :._-');

/**
 * A path of Catalyst's own origin (`/ideas/…#…`), never an absolute URL: the service worker opens it, and must
 * not be made to open another site.
 */
const SameOriginPathSchema = z
  .string()
  .max(512)
  .regex(/^\/(?![/\\])[^\s]*$/, 'must be a path of this origin, starting with one /');

export const PushPayloadSchema = z.strictObject({
  title: z.string().min(1).max(120),
  body: z.string().max(300),
  url: SameOriginPathSchema,
  /** Notifications with the same tag replace each other on the device (one per idea, say). */
  tag: TokenSchema,
  /** Buttons on the notification; platforms show two at most. */
  actions: z
    .array(z.strictObject({ action: TokenSchema, title: z.string().min(1).max(40) }))
    .max(2)
    .optional(),
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;

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
