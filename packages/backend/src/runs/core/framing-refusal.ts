import type { FramingRefusal } from '@catalyst/protocol';

/**
 * Whether a page's answer lets a browser show it in a frame of Catalyst's page (issue 31: the Preview tab shows the
 * app in a frame "when its headers allow"). Read the way Chromium reads them, against the one ancestor that
 * matters here, Catalyst's page (`embedder`, an origin such as `http://127.0.0.1:8787`): the app's page is always
 * of another origin than Catalyst's.
 *
 * - An enforced `Content-Security-Policy` with `frame-ancestors` decides, and `X-Frame-Options` is then ignored
 *   (CSP 3 §6.4.2; Chromium does so). Every such policy must allow the embedder. A report-only policy enforces
 *   nothing.
 * - Otherwise `X-Frame-Options` (HTML's processing model): `DENY` refuses, and so does `SAMEORIGIN` (Catalyst is
 *   another origin); several different values among deny, sameorigin and allowall refuse; anything else
 *   (`ALLOW-FROM`, a typo) is ignored.
 */

export interface FramingHeaders {
  /** Every `X-Frame-Options` value of the answer, as sent. */
  xFrameOptions: readonly string[];
  /** Every enforced `Content-Security-Policy` value of the answer. */
  contentSecurityPolicy: readonly string[];
}

export function findFramingRefusal(headers: FramingHeaders, embedder: string): FramingRefusal | undefined {
  const ancestors = headers.contentSecurityPolicy
    .flatMap((value) => value.split(','))
    .map(frameAncestorsOf)
    .filter((sources): sources is string[] => sources !== undefined);
  if (ancestors.length > 0) {
    const embedderUrl = new URL(embedder);
    return ancestors.every((sources) => sources.some((source) => sourceMatches(source, embedderUrl)))
      ? undefined
      : 'frame-ancestors';
  }
  return isRefusedByFrameOptions(headers.xFrameOptions) ? 'x-frame-options' : undefined;
}

function isRefusedByFrameOptions(values: readonly string[]): boolean {
  const seen = new Set(
    values
      .flatMap((value) => value.split(','))
      .map((value) => value.trim().toLowerCase())
      .filter((value) => value !== ''),
  );
  const known = ['deny', 'sameorigin', 'allowall'].filter((value) => seen.has(value));
  if (seen.size > 1 && known.length > 0) return true;
  return seen.has('deny') || seen.has('sameorigin');
}

/** The sources of a policy's first `frame-ancestors` directive (later ones are ignored), if it has one. */
function frameAncestorsOf(policy: string): string[] | undefined {
  for (const directive of policy.split(';')) {
    const [name, ...sources] = directive.trim().split(/[\t\n\f\r ]+/);
    if (name?.toLowerCase() === 'frame-ancestors') return sources.map((source) => source.toLowerCase());
  }
  return undefined;
}

const HOST_SOURCE =
  /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d+|\*))?(?:\/.*)?$/;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * CSP 3 §6.7.2.8 for the sources `frame-ancestors` takes: `'none'` and `'self'` (the app's own origin, never
 * Catalyst's) match nothing here; a scheme source (`http:`); a host source with an optional scheme, a leading `*.`
 * and a port or `*`. An http source matches an https embedder too, never the other way round.
 */
function sourceMatches(source: string, embedder: URL): boolean {
  if (source === "'none'" || source === "'self'") return false;
  if (/^[a-z][a-z0-9+.-]*:$/.test(source)) return schemeMatches(source, embedder.protocol);
  const match = HOST_SOURCE.exec(source);
  if (match === null) return false;
  const [, scheme, host = '', port] = match;
  if (scheme !== undefined && !schemeMatches(`${scheme}:`, embedder.protocol)) return false;
  if (scheme === undefined && embedder.protocol !== 'http:' && embedder.protocol !== 'https:') return false;
  if (host === '*') return true;
  const hostname = embedder.hostname.toLowerCase();
  const isHostMatch = host.startsWith('*.') ? hostname.endsWith(host.slice(1)) : hostname === host;
  if (!isHostMatch) return false;
  const embedderPort = embedder.port === '' ? (DEFAULT_PORTS[embedder.protocol] ?? '') : embedder.port;
  if (port === '*') return true;
  return (port ?? DEFAULT_PORTS[scheme === undefined ? embedder.protocol : `${scheme}:`]) === embedderPort;
}

function schemeMatches(scheme: string, protocol: string): boolean {
  return scheme === protocol || (scheme === 'http:' && protocol === 'https:');
}
