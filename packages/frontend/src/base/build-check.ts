/**
 * The build this page was served from against the build the server now serves (issue 39). After an upgrade an
 * open tab still runs the old code; rather than fail on answers it was not written for, it offers a reload.
 */

/** The response header that names the served web app's build (set by the backend's http-app.ts). */
export const BUILD_HEADER = 'x-catalyst-build';
/** The `<meta name>` in index.html that names the page's own build (build/build-id-plugin.ts). */
export const BUILD_META = 'catalyst-build';
/** The file in the built app the backend reads the id from. */
export const BUILD_FILE = 'build-id.txt';
/** Fired once, when an answer comes from a server serving another build. */
export const UPDATE_AVAILABLE_EVENT = 'catalyst:update-available';

let isUpdateSeen = false;

/** The page's own build id; undefined under the dev server, which stamps none. */
export function readPageBuild(doc: Document = document): string | undefined {
  const content = doc.querySelector(`meta[name="${BUILD_META}"]`)?.getAttribute('content');
  return content === null || content === undefined || content === '' ? undefined : content;
}

/** Whether a server answering with `serverBuild` serves another web app than this page's. */
export function isOtherBuild(pageBuild: string | undefined, serverBuild: string | null): boolean {
  if (pageBuild === undefined || serverBuild === null || serverBuild === '') return false;
  return serverBuild !== pageBuild;
}

/** Called with each API answer's build header; tells the app once when the server has moved on. */
export function noteServerBuild(serverBuild: string | null): void {
  if (isUpdateSeen || !isOtherBuild(readPageBuild(), serverBuild)) return;
  isUpdateSeen = true;
  dispatchEvent(new Event(UPDATE_AVAILABLE_EVENT));
}

/** Whether an update was already seen (a banner mounted after the event still shows). */
export function isUpdateAvailable(): boolean {
  return isUpdateSeen;
}
