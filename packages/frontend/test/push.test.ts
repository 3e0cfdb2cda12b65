import type { CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPushAction, type PushPayload } from '@catalyst/protocol';
import { useBrowserSuite, within } from './browser-harness.ts';
import { openIdea } from './idea-page.ts';

// A push reaches the real service worker of the built app (delivered by Chromium's DevTools protocol, as a push
// service would hand it over) and shows as a notification with Catalyst's title, sentence, tag and actions; a push
// that is not Catalyst's payload shows nothing. Chromium here cannot reach a real push service, so
// `pushManager.subscribe` is not exercised: the page's side of subscribing is covered by the web tests
// (push-device.test.ts, NotifyButton.test.tsx), the worker's click handling by notification-click.test.ts.

const suite = useBrowserSuite();

const RegistrationsSchema = z.object({
  registrations: z.array(
    z.object({ registrationId: z.string(), scopeURL: z.string(), isDeleted: z.boolean() }),
  ),
});

const ShownSchema = z.array(
  z.object({
    title: z.string(),
    body: z.string(),
    tag: z.string(),
    data: z.unknown(),
    actions: z.array(z.object({ action: z.string(), title: z.string() })),
  }),
);

/** The id Chromium gives the worker's registration for `scope`, from the ServiceWorker domain's events. */
async function registrationId(cdp: CDPSession, scope: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
      const { registrations } = RegistrationsSchema.parse(event);
      const match = registrations.find(
        (registration) => registration.scopeURL === scope && !registration.isDeleted,
      );
      if (match !== undefined) resolve(match.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return within(found, 'the service worker`s registration');
}

function shownNotifications(page: Page): Promise<z.infer<typeof ShownSchema>> {
  return page
    .evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      const shown = await registration.getNotifications();
      return shown.map((notification) => ({
        title: notification.title,
        body: notification.body,
        tag: notification.tag,
        data: notification.data as unknown,
        // Chromium has them; TypeScript's lib does not.
        actions: (notification as Notification & { actions?: unknown }).actions ?? [],
      }));
    })
    .then((shown) => ShownSchema.parse(shown));
}

describe('Web Push in the browser', () => {
  it('shows a push as a notification with its actions, offers push on this device, and ignores a foreign push', async () => {
    const { service } = suite.fixture;
    const origin = service.catalyst.url;
    const idea = await service.createIdea('Ask me on the phone');
    const page = await suite.openLoggedInPage();
    await page.context().grantPermissions(['notifications'], { origin });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await openIdea(page, { id: idea.id, title: 'Ask me on the phone' });
    // A secure context with a service worker and a PushManager: push is offered here.
    await page.getByRole('button', { name: 'Notify me on this device' }).waitFor();

    const cdp = await page.context().newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);
    const deliver = (data: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', { origin: `${origin}/`, registrationId: id, data });

    await deliver('not json at all');
    await deliver(JSON.stringify({ title: 'Evil', body: 'x', url: 'https://evil.example/', tag: 't' }));
    const payload: PushPayload = {
      title: 'Ask me on the phone',
      body: 'Claude asks: Which database?',
      url: `/ideas/${idea.id}`,
      tag: idea.id,
      actions: [
        { action: formatPushAction({ kind: 'choose', questionId: 'toolu_01', option: 0 }), title: 'SQLite' },
        {
          action: formatPushAction({ kind: 'choose', questionId: 'toolu_01', option: 1 }),
          title: 'Postgres',
        },
      ],
    };
    await deliver(JSON.stringify(payload));
    await page.waitForFunction(async () => {
      const registration = await navigator.serviceWorker.ready;
      return (await registration.getNotifications()).length > 0;
    });
    expect(await shownNotifications(page)).toEqual([
      {
        title: 'Ask me on the phone',
        body: 'Claude asks: Which database?',
        tag: idea.id,
        data: { url: `/ideas/${idea.id}` },
        actions: [
          { action: 'choose:toolu_01:0', title: 'SQLite' },
          { action: 'choose:toolu_01:1', title: 'Postgres' },
        ],
      },
    ]);
  });
});
