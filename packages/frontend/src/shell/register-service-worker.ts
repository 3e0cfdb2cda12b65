/**
 * Registers the service worker (src/sw/sw.ts, served as /sw.js) in production builds, where the browser allows one:
 * a secure context, which http://localhost and http://127.0.0.1 are. Vite's dev server serves no worker. Catalyst
 * works without it (no offline page, no install), so a refusal is a warning, not an error.
 */
export function registerServiceWorker(): void {
  if (!canRegisterServiceWorker()) return;
  // `updateViaCache: 'none'`: the browser checks /sw.js with the server on every load, so a new build is found.
  navigator.serviceWorker
    .register('/sw.js', { scope: '/', updateViaCache: 'none' })
    .catch((error: unknown) => {
      console.warn('Catalyst runs without its service worker: no offline page, no install.', error);
    });
}

/** Where registerServiceWorker registers it: what push on this device needs too (notify/push-device.ts). */
export function canRegisterServiceWorker(): boolean {
  return import.meta.env.PROD && window.isSecureContext && 'serviceWorker' in navigator;
}
