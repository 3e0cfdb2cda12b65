import { z } from 'zod';
import { IdeaIdSchema } from './idea.ts';

/**
 * Web Push (issue 29): what a push carries to the service worker, how a page subscribes its device, and the answers
 * a notification may send back. A push crosses the push service (a third party, which sees only ciphertext, but
 * keeps it for the TTL) and lands on a lock screen: all it may carry is the idea's title, one sentence of Catalyst's
 * own, the idea's page, a tag, and at most two actions (docs/security.md).
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

/**
 * A notification action, as `PushPayload.actions[].action` names it and the service worker sends it back:
 * `choose:<questionId>:<option index>` or `permission:<requestId>:allow|deny`.
 */
export type PushAction =
  | { readonly kind: 'choose'; readonly questionId: string; readonly option: number }
  | { readonly kind: 'permission'; readonly requestId: string; readonly decision: 'allow' | 'deny' };

export function formatPushAction(action: PushAction): string {
  return action.kind === 'choose'
    ? `choose:${action.questionId}:${String(action.option)}`
    : `permission:${action.requestId}:${action.decision}`;
}

export function parsePushAction(text: string): PushAction | undefined {
  const choose = /^choose:([A-Za-z0-9._-]+):([01])$/.exec(text);
  if (choose?.[1] !== undefined && choose[2] !== undefined) {
    return { kind: 'choose', questionId: choose[1], option: Number(choose[2]) };
  }
  const permission = /^permission:([A-Za-z0-9._-]+):(allow|deny)$/.exec(text);
  if (permission?.[1] !== undefined && (permission[2] === 'allow' || permission[2] === 'deny')) {
    return { kind: 'permission', requestId: permission[1], decision: permission[2] };
  }
  return undefined;
}

/** What a page posts: `PushSubscription.toJSON()`; the server checks the endpoint's scheme (push-subscription-schema.ts). */
export const PushSubscriptionBodySchema = z.object({
  endpoint: z.url().max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.strictObject({ p256dh: z.string().max(200), auth: z.string().max(100) }),
});
export type PushSubscriptionBody = z.infer<typeof PushSubscriptionBodySchema>;

export const PushSubscriptionViewSchema = z.object({
  endpoint: z.string(),
  createdAt: z.iso.datetime(),
  mutedIdeas: z.array(IdeaIdSchema),
});
export type PushSubscriptionView = z.infer<typeof PushSubscriptionViewSchema>;
export const PushSubscriptionResponseSchema = z.object({ subscription: PushSubscriptionViewSchema });

export const PushKeyResponseSchema = z.object({
  /** `applicationServerKey` for `PushManager.subscribe()` (base64url, the VAPID public key). */
  publicKey: z.string(),
});

export const PushEndpointBodySchema = z.strictObject({ endpoint: z.url().max(2048) });
export const PushMuteBodySchema = z.strictObject({ endpoint: z.url().max(2048), isMuted: z.boolean() });

/** A notification's answer to a question of two options at most: the option's index. */
export const ChooseOptionBodySchema = z.strictObject({ option: z.int().min(0).max(1) });
/** A notification's answer to a permission request. */
export const PermissionDecisionBodySchema = z.strictObject({ decision: z.enum(['allow', 'deny']) });
