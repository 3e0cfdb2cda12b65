import type { CDPSession, Page, Worker } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPushAction, type PushPayload } from '@catalyst/protocol';
import { WORKER_KEY_PLACE } from '../src/sw/worker-session-key.ts';
import { useBrowserSuite, within } from './browser-harness.ts';
import { openIdea } from './idea-page.ts';

// A push reaches the real service worker of the built app (delivered by Chromium's DevTools protocol, as a push
// service would hand it over) and shows as a notification with Catalyst's title, sentence, tag and actions; a push
// that is not Catalyst's payload shows nothing. Chromium here cannot reach a real push service, so
// `pushManager.subscribe` is not exercised: the page's side of subscribing is covered by the web tests
// (push-device.test.ts, NotifyButton.test.tsx), the worker's click handling by notification-click.test.ts.

const suite = useBrowserSuite({ host: 'in-process' });

const RegistrationsSchema = z.object({
  registrations: z.array(
    z.object({ registrationId: z.string(), scopeURL: z.string(), isDeleted: z.boolean() }),
  ),
});

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

/** What the test uses of a service worker's global scope (the page's TypeScript lib is the DOM's). */
interface WorkerScope {
  fetch: typeof fetch;
  registration: ServiceWorkerRegistration;
  NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
  dispatchEvent(event: Event): boolean;
}

/** What the worker asked Chromium to show, and whether Chromium took it (`shown`) or why not. */
const AskedSchema = z.array(
  z.object({
    title: z.string(),
    body: z.string(),
    tag: z.string(),
    data: z.unknown(),
    actions: z.array(z.object({ action: z.string(), title: z.string() })),
    outcome: z.string(),
  }),
);

/** What the test uses of the worker's global scope while it watches its notifications. */
interface WatchedScope {
  registration: ServiceWorkerRegistration;
  catalystAsked?: z.infer<typeof AskedSchema>;
}

/**
 * Watches the page's service worker from here on: each notification it shows is recorded with what Chromium made
 * of it. Headless Chromium's notifications are a stub whose `getNotifications()` lists a shown one now and then not
 * at all (a suite run waited 30 s for it in vain), so the test looks at the worker's own call instead.
 */
async function watchNotifications(page: Page): Promise<Worker> {
  const [worker] = page.context().serviceWorkers();
  if (worker === undefined) throw new Error('no service worker in the context');
  await worker.evaluate(() => {
    const scope = self as unknown as WatchedScope;
    const asked: NonNullable<WatchedScope['catalystAsked']> = [];
    scope.catalystAsked = asked;
    const show = scope.registration.showNotification.bind(scope.registration);
    scope.registration.showNotification = async (title, options = {}) => {
      const entry = {
        title,
        body: options.body ?? '',
        tag: options.tag ?? '',
        data: options.data as unknown,
        actions: (options as { actions?: { action: string; title: string }[] }).actions ?? [],
        outcome: 'pending',
      };
      asked.push(entry);
      try {
        await show(title, options);
        entry.outcome = 'shown';
      } catch (error) {
        entry.outcome = String(error);
        throw error;
      }
    };
  });
  return worker;
}

/** What the watched worker showed, once it showed anything and Chromium answered. */
async function notificationsShown(worker: Worker): Promise<z.infer<typeof AskedSchema>> {
  const asked = async () =>
    AskedSchema.parse(await worker.evaluate(() => (self as unknown as WatchedScope).catalystAsked ?? []));
  await expect
    .poll(async () => (await asked()).some((entry) => entry.outcome !== 'pending'), { timeout: 20_000 })
    .toBe(true);
  return asked();
}

describe('Web Push in the browser', () => {
  it('shows a push as a notification with its actions, offers push on this device, and ignores a foreign push', async () => {
    const { service } = suite.fixture;
    const origin = service.catalyst.url;
    const idea = await service.createIdea('Ask me on the phone');
    const page = await suite.openLoggedInPage({ serviceWorkers: 'allow' });
    await page.context().grantPermissions(['notifications'], { origin });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await openIdea(page, { id: idea.id, title: 'Ask me on the phone' });
    // A secure context with a service worker and a PushManager: push is offered here.
    await page.getByRole('button', { name: 'Idea actions', exact: true }).click();
    await page.getByRole('button', { name: 'Notify me on this device' }).waitFor();

    const cdp = await page.context().newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);
    const deliver = (data: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', { origin: `${origin}/`, registrationId: id, data });
    const worker = await watchNotifications(page);

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
    // Pushes are handled in order: by the time the last one shows, the first two showed nothing.
    expect(await notificationsShown(worker)).toEqual([
      {
        title: 'Ask me on the phone',
        body: 'Claude asks: Which database?',
        tag: idea.id,
        data: { url: `/ideas/${idea.id}` },
        actions: [
          { action: 'choose:toolu_01:0', title: 'SQLite' },
          { action: 'choose:toolu_01:1', title: 'Postgres' },
        ],
        outcome: 'shown',
      },
    ]);
  });

  it('posts a notification action`s answer from the worker with this device`s cookie and key', async () => {
    const { service } = suite.fixture;
    const origin = service.catalyst.url;
    const idea = await service.createIdea('Answer from the lock screen');
    const page = await suite.openLoggedInPage({ serviceWorkers: 'allow' });
    await page.context().grantPermissions(['notifications'], { origin });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The copy of the session key the page keeps for the worker once push is on (push-device.ts): push cannot be
    // turned on here (no push service), so the test writes it where the page would.
    await page.evaluate(
      async ({ place, storageName }) => {
        const database = await new Promise<IDBDatabase>((resolve, reject) => {
          const request = indexedDB.open(place.database, 1);
          request.onupgradeneeded = () => request.result.createObjectStore(place.store);
          request.onsuccess = () => {
            resolve(request.result);
          };
          request.onerror = () => {
            reject(new Error('IndexedDB did not open'));
          };
        });
        await new Promise<void>((resolve) => {
          const transaction = database.transaction(place.store, 'readwrite');
          transaction.objectStore(place.store).put(localStorage.getItem(storageName), place.key);
          transaction.oncomplete = () => {
            resolve();
          };
        });
        database.close();
      },
      { place: WORKER_KEY_PLACE, storageName: 'catalyst.sessionKey' },
    );

    const cdp = await page.context().newCDPSession(page);
    const id = await registrationId(cdp, `${origin}/`);
    const payload: PushPayload = {
      title: 'Answer from the lock screen',
      body: 'Claude asks: Which one?',
      url: `/ideas/${idea.id}`,
      tag: idea.id,
      actions: [{ action: 'choose:toolu_gone:1', title: 'B' }],
    };
    // Headless Chromium's stub lists a shown notification now and then not at all (see watchNotifications): the
    // click needs one that is listed, so the push is delivered again (the same tag replaces it) until one is.
    const listed = () =>
      page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length);
    for (let delivery = 1; ; delivery += 1) {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: `${origin}/`,
        registrationId: id,
        data: JSON.stringify(payload),
      });
      const isListed = await expect
        .poll(listed, { timeout: 5_000 })
        .toBeGreaterThan(0)
        .then(
          () => true,
          () => false,
        );
      if (isListed) break;
      if (delivery === 4) throw new Error('no delivery of the push was listed as shown');
    }

    // Chromium's DevTools cannot click a notification: the worker is handed the click as the browser hands it, and
    // its fetch is watched. The question is long gone, so the API's answer says whether the worker's request got
    // past the login (404 QUESTION_NOT_FOUND) or not (401; 403 for a foreign origin).
    const [worker] = page.context().serviceWorkers();
    if (worker === undefined) throw new Error('no service worker in the context');
    const answer = await worker.evaluate(async (action) => {
      const scope = self as unknown as WorkerScope;
      const posted = new Promise<{ url: string; body: unknown; status: number; json: unknown }>((resolve) => {
        const original = scope.fetch.bind(scope);
        scope.fetch = async (input, init) => {
          const response = await original(input, init);
          resolve({
            url: typeof input === 'string' ? input : 'not a path',
            body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
            status: response.status,
            json: (await response.clone().json()) as unknown,
          });
          return response;
        };
      });
      const [notification] = await scope.registration.getNotifications();
      if (notification === undefined) throw new Error('no notification');
      scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification, action }));
      return posted;
    }, 'choose:toolu_gone:1');
    expect(answer).toEqual({
      url: `/api/ideas/${idea.id}/questions/toolu_gone/choose`,
      body: { option: 1 },
      status: 404,
      json: { error: expect.objectContaining({ code: 'QUESTION_NOT_FOUND' }) as unknown },
    });
  });
});
