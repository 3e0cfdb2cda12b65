import type { Logger } from 'pino';
import { createPushSender, type PushSender, type PushSenderOptions } from './push-sender.ts';
import { openPushSubscriptions, type PushSubscriptionStore } from './push-subscription-store.ts';
import { loadVapidKeys, vapidSubject } from './vapid-keys.ts';

/**
 * Web Push as the composition root will hold it (issue 29): the VAPID keys (made at first start), the
 * subscriptions, and the sender that removes ended ones from them. Events, routes and the page are wired to it
 * elsewhere.
 */

export interface WebPush {
  /** `applicationServerKey` for `PushManager.subscribe()`: what the page needs to subscribe. */
  readonly publicKey: string;
  readonly subscriptions: PushSubscriptionStore;
  readonly sender: PushSender;
  close(): Promise<void>;
}

export interface OpenWebPushOptions {
  configDir: string;
  /** CATALYST_PUBLIC_URL: the VAPID contact when it is https. */
  publicUrl?: string;
  logger: Logger;
  /** Takes http://127.0.0.1 endpoints, and posts to them: tests only (the test kit's mock push service). */
  allowLoopbackHttp?: boolean;
  /** CATALYST_PUSH_SERVICES: push services' hosts taken besides the known ones (push-services.ts). */
  pushServices?: readonly string[];
  /** Timings and limits of the sender (tests shorten them). */
  sending?: Pick<PushSenderOptions, 'concurrency' | 'timeoutMs' | 'maxQueued' | 'backoff' | 'wait'>;
}

export async function openWebPush(options: OpenWebPushOptions): Promise<WebPush> {
  const subscriptions = await openPushSubscriptions({
    configDir: options.configDir,
    logger: options.logger,
    allowLoopbackHttp: options.allowLoopbackHttp ?? false,
    pushServices: options.pushServices ?? [],
  });
  const vapid = await loadVapidKeys(options.configDir, {
    logger: options.logger,
    beforeMaking: () => dropSubscriptionsOfOldKeys(subscriptions, options.logger),
  });
  if (vapid.generated) options.logger.info('made the VAPID key pair for Web Push');
  const sender = createPushSender({
    ...options.sending,
    vapid: { publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    subject: vapidSubject(options.publicUrl),
    subscriptions,
    logger: options.logger,
    allowPrivateAddresses: options.allowLoopbackHttp ?? false,
  });
  return { publicKey: vapid.publicKey, subscriptions, sender, close: () => sender.close() };
}

/**
 * A subscription is bound to the VAPID public key it was made with: once a new pair is made (the old one lost or
 * set aside damaged), push services refuse every push signed for it (403), and nothing would tell the browser.
 * They are dropped before the new pair is kept (a crash in between cannot leave them beside it), so nothing more
 * is sent to them; a browser gets pushes again once its page subscribes anew with
 * the new public key (GET /api/push/key).
 */
async function dropSubscriptionsOfOldKeys(
  subscriptions: PushSubscriptionStore,
  logger: Logger,
): Promise<void> {
  const endpoints = new Set(subscriptions.list().map((item) => item.endpoint));
  if (endpoints.size === 0) return;
  for (const endpoint of endpoints) await subscriptions.remove(endpoint);
  logger.warn(
    { count: endpoints.size },
    'the push subscriptions were made with VAPID keys Catalyst no longer has: dropped; each device must turn notifications on again',
  );
}
