import { PushPayloadSchema } from '@catalyst/protocol';
import { z } from 'zod';

/**
 * What the service worker shows for a push (issue 29): the payload, parsed strictly with the protocol's schema
 * (the server's own words, `backend/src/push/push-payload.ts`), becomes one notification. Anything else (no data,
 * not JSON, another shape) shows nothing of it: the worker never throws on a push.
 */

export const NOTIFICATION_ICON = '/icons/icon-192.png';

/** What a notification keeps for its click: the idea's page, a path of this origin. */
export const NotificationDataSchema = z.object({ url: PushPayloadSchema.shape.url });
export type NotificationData = z.infer<typeof NotificationDataSchema>;

/**
 * The options of `showNotification`. `actions` is the Notifications API's (Chromium shows them), which
 * TypeScript's lib leaves out; a plain object of this type is accepted where `NotificationOptions` is asked for.
 */
export interface NotificationToShow {
  readonly title: string;
  readonly options: {
    body: string;
    tag: string;
    icon: string;
    data: NotificationData;
    actions: { action: string; title: string }[];
  };
}

/** The push's data (`PushMessageData`, or null for a push without any) as a notification, or undefined. */
export function notificationOfPush(data: { json(): unknown } | null): NotificationToShow | undefined {
  if (data === null) return undefined;
  let json: unknown;
  try {
    json = data.json();
  } catch {
    return undefined;
  }
  const parsed = PushPayloadSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { title, body, url, tag, actions = [] } = parsed.data;
  return {
    title,
    options: {
      body,
      tag,
      icon: NOTIFICATION_ICON,
      data: { url },
      actions: actions.map((action) => ({ action: action.action, title: action.title })),
    },
  };
}
