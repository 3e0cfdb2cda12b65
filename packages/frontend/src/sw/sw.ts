import { z } from 'zod';
import {
  isOldShellCache,
  isUnreachableStatus,
  routeRequest,
  shellCacheName,
  type ShellManifest,
} from './cache-rules.ts';
import { handleNotificationClick, type AppWindow } from './notification-click.ts';
import { notificationOfPush } from './push-notification.ts';
import { readWorkerSessionKey } from './worker-session-key.ts';

/**
 * Catalyst's service worker, served as /sw.js (scope `/`) and registered by the app in production builds
 * (src/shell/register-service-worker.ts). It makes the app installable and keeps one promise: when Catalyst cannot
 * be reached, a page load shows the offline page (which retries by itself), never anything old shown as live. What
 * it answers and from where: cache-rules.ts. docs/architecture.md, "The installable app".
 *
 * This file is bundled on its own into a classic script by build/service-worker-plugin.ts, which also writes this
 * build's file list in place of `__CATALYST_SHELL__`.
 */

declare const self: ServiceWorkerGlobalScope;
declare const __CATALYST_SHELL__: ShellManifest;

// As in the page (src/zod-setup.ts): zod's JIT probes for eval, which the CSP forbids; the parsing is the same.
z.config({ jitless: true });

const shell = __CATALYST_SHELL__;
const cacheName = shellCacheName(shell.version);
const shellFiles: ReadonlySet<string> = new Set(shell.files);

// A new build's worker takes over at once (the app is one bundle with no lazily loaded chunks, so a page of the
// older build needs nothing from the older cache), and the page that registered it is controlled without a reload.
self.addEventListener('install', (event) => {
  event.waitUntil(precacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(deleteOldShells().then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const route = routeRequest(event.request, { origin: self.location.origin, shellFiles });
  switch (route) {
    case 'network':
      return;
    case 'navigation':
      event.respondWith(loadPage(event.request));
      return;
    case 'shell':
      event.respondWith(fromShell(event.request));
      return;
  }
});

// Push (issue 29), beside the shell's listeners in this one worker (a scope has exactly one). What a push shows:
// push-notification.ts; what a click does: notification-click.ts.
self.addEventListener('push', (event) => {
  const shown = notificationOfPush(event.data);
  if (shown === undefined) return;
  event.waitUntil(self.registration.showNotification(shown.title, shown.options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    handleNotificationClick(
      { action: event.action, data: event.notification.data },
      {
        origin: self.location.origin,
        fetch: (path, init) => fetch(path, init),
        readSessionKey: readWorkerSessionKey,
        windows: async () => {
          const found = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
          return found.filter((client): client is WindowClient & AppWindow => client instanceof WindowClient);
        },
        openWindow: (url) => self.clients.openWindow(url),
      },
    ),
  );
});

/** All or nothing: a file that fails to load fails the install, and the worker already in place stays. */
async function precacheShell(): Promise<void> {
  const cache = await caches.open(cacheName);
  // `reload`: the files as the server has them now, never the browser's HTTP cache of an older build.
  await cache.addAll(shell.files.map((file) => new Request(file, { cache: 'reload' })));
}

async function deleteOldShells(): Promise<void> {
  const names = await caches.keys();
  await Promise.all(
    names.filter((name) => isOldShellCache(name, cacheName)).map((name) => caches.delete(name)),
  );
}

/**
 * The network's answer, whatever it is (a 401, a 404: Catalyst's own words). Only when Catalyst cannot be reached
 * (no answer at all, or a reverse proxy's 502/503/504) the offline page instead, at the same address.
 */
async function loadPage(request: Request): Promise<Response> {
  try {
    const response = await fetch(request);
    if (!isUnreachableStatus(response.status)) return response;
  } catch {
    // No answer at all: the offline page below says so, and retries by itself.
  }
  const cache = await caches.open(cacheName);
  return (await cache.match(shell.offlinePage)) ?? Response.error();
}

async function fromShell(request: Request): Promise<Response> {
  const cache = await caches.open(cacheName);
  return (await cache.match(request)) ?? fetch(request);
}
