import { api, describeError } from '../base/api.ts';
import { readSessionKey } from '../base/session-key.ts';
import { canRegisterServiceWorker } from '../shell/register-service-worker.ts';
import { writeWorkerSessionKey } from '../sw/worker-session-key.ts';
import type { PushPorts } from './push-device.ts';

/** The browser's push, where the app registers its service worker (a production build in a secure context). */
export function createBrowserPushPorts(): PushPorts {
  return {
    async pushManager() {
      if (!canRegisterServiceWorker() || !('PushManager' in window) || !('Notification' in window))
        return undefined;
      // The app registers the worker as it starts (main.tsx); push needs it active.
      return (await navigator.serviceWorker.ready).pushManager;
    },
    permission: () => Notification.permission,
    requestPermission: () => Notification.requestPermission(),
    keepWorkerKey: (on) => writeWorkerSessionKey(on ? readSessionKey() : undefined),
    api,
    describeError,
  };
}
