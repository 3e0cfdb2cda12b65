/**
 * The offline page is the app's own index.html with one more tag (build/service-worker-plugin.ts writes it as
 * offline.html, and the service worker keeps it in its cache): the same bundle then renders only the offline page,
 * with no login check, no WebSocket and nothing of any idea.
 */
export const OFFLINE_SHELL_META = 'catalyst-offline-shell';

export const OFFLINE_SHELL_TAG = `<meta name="${OFFLINE_SHELL_META}" content="" />`;

export function isOfflineShell(): boolean {
  return document.querySelector(`meta[name="${OFFLINE_SHELL_META}"]`) !== null;
}

/** The offline page's heading and the document's title while it shows. */
export const OFFLINE_TITLE = 'Catalyst cannot be reached right now';
