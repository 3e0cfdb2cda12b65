/**
 * What the service worker (sw.ts) does with a request, as pure rules: which requests it answers, and from where.
 * The one invariant: nothing that carries a person's data or a login is ever put in the cache or answered from
 * it. The cache holds only the build's own files (the app shell), written once when the worker installs.
 */

/** This build's files, written into sw.js by the build (build/service-worker-plugin.ts). */
export interface ShellManifest {
  /** A digest of every file's name and contents: a new build is a new version, and a new cache. */
  readonly version: string;
  /** Absolute paths (`/index.html`, `/assets/index-….js`, `/icons/icon-192.png`, …). */
  readonly files: readonly string[];
  /** The page shown when a navigation cannot reach Catalyst; one of `files`. */
  readonly offlinePage: string;
}

/**
 * Never answered by the worker, whatever the method or mode: the API and the WebSocket (live data, and the
 * session), the login and pairing links (a token or code in the fragment, a cookie in the answer), and previews.
 * Each covers the path itself and everything under it (`/api`, `/api/ideas`, never `/apiary`).
 */
export const NEVER_CACHED_PATHS = ['/api', '/ws', '/login', '/pair', '/preview'] as const;

/**
 * `network`: the worker does not answer; the browser fetches as if there were no worker.
 * `navigation`: a page load, from the network; the offline page only when Catalyst cannot be reached.
 * `shell`: one of this build's files, from the cache (the network if it is missing there).
 */
export type RequestRoute = 'network' | 'navigation' | 'shell';

export interface RequestFacts {
  readonly method: string;
  readonly url: string;
  readonly mode: string;
}

export function routeRequest(
  request: RequestFacts,
  scope: { origin: string; shellFiles: ReadonlySet<string> },
): RequestRoute {
  if (request.method !== 'GET') return 'network';
  const url = new URL(request.url);
  if (url.origin !== scope.origin || isNeverCached(url.pathname)) return 'network';
  if (request.mode === 'navigate') return 'navigation';
  if (url.search === '' && scope.shellFiles.has(url.pathname)) return 'shell';
  return 'network';
}

export function isNeverCached(pathname: string): boolean {
  return NEVER_CACHED_PATHS.some((path) => pathname === path || pathname.startsWith(`${path}/`));
}

/**
 * An answer that says Catalyst itself cannot be reached: a reverse proxy in front of it answers 502, 503 or 504
 * while it is down. Any other status, errors included, is Catalyst's own answer.
 */
export function isUnreachableStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

const SHELL_CACHE_PREFIX = 'catalyst-shell-';

export function shellCacheName(version: string): string {
  return `${SHELL_CACHE_PREFIX}${version}`;
}

/** A cache an older build's worker made; caches of other names are not the worker's to delete. */
export function isOldShellCache(name: string, current: string): boolean {
  return name.startsWith(SHELL_CACHE_PREFIX) && name !== current;
}
