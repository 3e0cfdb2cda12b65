import type { PreviewView } from '@catalyst/protocol';
import type { PreviewServer } from './preview-server.ts';

/**
 * A running preview's one-time links: to open it in a tab; and, when it has a name of its own, for the Preview
 * tab's frame in the page at `requestHost` (issue 31). Under a name shared with Catalyst it is not framed: Catalyst's
 * CSP allows frames of `*.localhost` names alone (docs/security.md).
 */
export function previewLinks(
  server: PreviewServer,
  requestHost: string | undefined,
  bind: string,
): Partial<PreviewView> {
  const origin = previewOrigin(server, requestHost, bind);
  const embedder = requestHost === undefined ? undefined : `http://${requestHost}`;
  const frame = server.frame(embedder);
  const isOwnSite = new URL(origin).hostname === server.hostName;
  return {
    url: `${origin}${server.mintEntry(origin)}`,
    origin,
    ...(isOwnSite && embedder !== undefined
      ? { frameUrl: `${origin}${server.mintEntry(origin, { embedder })}` }
      : {}),
    ...(frame === undefined ? {} : { frame }),
  };
}

/**
 * The origin of a preview's server: reached on loopback, a name of its own under `localhost` (a site of its own in
 * the browser, issue 25, finding 7); reached by another name (another machine's browser), that name, which every
 * preview then shares with Catalyst (docs/security.md).
 */
export function previewOrigin(server: PreviewServer, requestHost: string | undefined, bind: string): string {
  const name = hostNameOf(requestHost, bind);
  return `http://${isLoopbackName(name) ? server.hostName : name}:${server.listenPort}`;
}

/** Names a browser resolves to this machine's loopback by itself (a URL's hostname: IPv6 in brackets). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/** The name the browser reached Catalyst by (a hostname, no port), else the bind address. */
export function hostNameOf(requestHost: string | undefined, bind: string): string {
  if (requestHost !== undefined) {
    try {
      const { hostname } = new URL(`http://${requestHost}`);
      if (hostname !== '') return hostname;
    } catch {
      // A Host header that is no host: the bind address below.
    }
  }
  if (bind === '0.0.0.0' || bind === '::') return '127.0.0.1';
  return bind.includes(':') ? `[${bind}]` : bind;
}
