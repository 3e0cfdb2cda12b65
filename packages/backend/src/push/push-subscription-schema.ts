import { z } from 'zod';
import { BrowserSessionIdSchema, IdeaIdSchema } from '@catalyst/protocol';
import { whyNotPushEndpoint } from './push-services.ts';

/**
 * A browser's push subscription, as `PushSubscription.toJSON()` gives it (endpoint and keys), and as Catalyst keeps
 * it: whose browser session it belongs to and which ideas that device has muted. The endpoint is where pushes
 * are POSTed, so only https: is taken (a push service is never plain http), or http://127.0.0.1 when the flag
 * says so (the test kit's mock push service); and of https: only the push services' hosts (endpointRefusal).
 */

export interface EndpointRule {
  /** Takes http://127.0.0.1:<port>/… endpoints too, of any push service: tests only. */
  allowLoopbackHttp: boolean;
  /** CATALYST_PUSH_SERVICES: hosts taken besides the known push services' (push-services.ts). */
  pushServices?: readonly string[];
}

const MAX_ENDPOINT_LENGTH = 2048;
/** A device mutes ideas one by one; a list this long is no device's. */
export const MAX_MUTED_IDEAS = 1000;

export function pushEndpointSchema(rule: EndpointRule) {
  return z
    .url()
    .max(MAX_ENDPOINT_LENGTH)
    .refine((text) => isAllowedEndpoint(new URL(text), rule), {
      message: rule.allowLoopbackHttp
        ? 'must be an https: URL, or http://127.0.0.1'
        : 'must be an https: URL without credentials',
    });
}

function isAllowedEndpoint(url: URL, rule: EndpointRule): boolean {
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return rule.allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1';
}

/**
 * Why Catalyst does not post to `endpoint` (a URL pushEndpointSchema took), as a sentence; undefined when it does.
 * Not part of the schemas: a subscriptions file written before a service was dropped from the list still reads.
 */
export function endpointRefusal(endpoint: string, rule: EndpointRule): string | undefined {
  const url = new URL(endpoint);
  if (rule.allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1') return undefined;
  return whyNotPushEndpoint(url, rule.pushServices ?? []);
}

/** The browser's own P-256 public key (65 octets, uncompressed) and its 16-octet auth secret, base64url. */
export const PushKeysSchema = z.strictObject({
  p256dh: z.string().regex(/^B[A-Za-z0-9_-]{86}$/, 'is not a base64url P-256 public key'),
  auth: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'is not a base64url 16-octet secret'),
});

/** What a page posts: `PushSubscription.toJSON()`, whose `expirationTime` Catalyst does not keep. */
export function pushSubscriptionJsonSchema(rule: EndpointRule) {
  return z.object({
    endpoint: pushEndpointSchema(rule),
    expirationTime: z.number().nullable().optional(),
    keys: PushKeysSchema,
  });
}
export type PushSubscriptionJson = z.infer<ReturnType<typeof pushSubscriptionJsonSchema>>;

export function storedPushSubscriptionSchema(rule: EndpointRule) {
  return z.strictObject({
    sessionId: BrowserSessionIdSchema,
    endpoint: pushEndpointSchema(rule),
    keys: PushKeysSchema,
    createdAt: z.iso.datetime(),
    mutedIdeas: z.array(IdeaIdSchema).max(MAX_MUTED_IDEAS),
  });
}
export type StoredPushSubscription = z.infer<ReturnType<typeof storedPushSubscriptionSchema>>;

export function pushSubscriptionsFileSchema(rule: EndpointRule) {
  return z.strictObject({
    version: z.literal(1),
    subscriptions: z.array(storedPushSubscriptionSchema(rule)),
  });
}
