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
  const vapid = await loadVapidKeys(options.configDir);
  if (vapid.generated) options.logger.info('made the VAPID key pair for Web Push');
  const subscriptions = await openPushSubscriptions({
    configDir: options.configDir,
    logger: options.logger,
    allowLoopbackHttp: options.allowLoopbackHttp ?? false,
    pushServices: options.pushServices ?? [],
  });
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
