import { MAX_REQUEST_HEAD_BYTES } from '../../server/http-server.ts';

/**
 * What a preview's server does with the app's `Set-Cookie` answers (issue 39). A cookie belongs to a host name,
 * not a port: under a name the preview shares with Catalyst (a LAN name; on loopback each preview has a name of
 * its own, `p-<id>.localhost`) every cookie the app sets goes with every request to Catalyst too, whatever its
 * `Path` (Catalyst serves every path). Catalyst reads only its own cookie among them (auth.ts) and accepts
 * MAX_REQUEST_HEAD_BYTES of head (http-server.ts); what the app sets through this server is kept well within:
 *
 * - Catalyst's names (`catalyst_*`, also written nameless) are dropped, under every name: the app cannot replace
 *   them.
 * - Under a shared name, a `Domain` attribute is removed: the cookie stays the host's (the app gets it back, as
 *   it asked) and never reaches the other names of the domain; its `Path` becomes `/`, so that every later request
 *   carries it and the budget below counts it (a cookie set for `/api` from `/x` would otherwise grow the heads
 *   of Catalyst's own paths unseen).
 * - Under a shared name, a cookie that would make those the browser sends here (the request's own, which are
 *   Catalyst's too) larger than COOKIE_BUDGET_BYTES is dropped; a removal, or a replacement no larger, passes.
 *
 * Cookies the app's scripts set (`document.cookie`) never pass here: Catalyst's page for a head too large is
 * what is left for those (http-server.ts).
 */

export const COOKIE_BUDGET_BYTES = MAX_REQUEST_HEAD_BYTES / 2;

/** The value to pass on for one `Set-Cookie` of the app's, undefined to drop it. */
export type SetCookieFilter = (value: string) => string | undefined;

export interface SetCookieContext {
  /** The request is under a name Catalyst shares (not the preview's own `p-<id>.localhost`). */
  isSharedName: boolean;
  /** The request's `Cookie` header: what the browser holds for this name. */
  cookieHeader: string | undefined;
}

export function createSetCookieFilter(context: SetCookieContext): SetCookieFilter {
  const sizes = cookieSizes(context.cookieHeader);
  let total = context.cookieHeader?.length ?? 0;
  return (value) => {
    if (setsCatalystCookie(value)) return undefined;
    if (!context.isSharedName) return value;
    const [pair = '', ...attributes] = value.split(';');
    const name = nameOf(pair);
    if (!isRemoval(attributes)) {
      const growth = pair.trim().length - (sizes.get(name) ?? 0);
      if (growth > 0 && total + growth > COOKIE_BUDGET_BYTES) return undefined;
      total += Math.max(growth, 0);
    }
    const kept = attributes.filter((attribute) => !['domain', 'path'].includes(attributeName(attribute)));
    return [pair, ...kept, ' Path=/'].join(';');
  };
}

/** A `Set-Cookie` for one of Catalyst's names, also written nameless (`=catalyst_session=…`), which some browsers read as the name. */
export function setsCatalystCookie(value: string): boolean {
  return /^\s*=?\s*catalyst_/i.test(value);
}

/** Each cookie's `name=value` length by name, as the `Cookie` header carries them. */
function cookieSizes(header: string | undefined): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const pair of (header ?? '').split(';')) sizes.set(nameOf(pair), pair.trim().length);
  return sizes;
}

function nameOf(pair: string): string {
  const equals = pair.indexOf('=');
  return (equals < 0 ? '' : pair.slice(0, equals)).trim();
}

function attributeName(attribute: string): string {
  return attribute.split('=', 1)[0]?.trim().toLowerCase() ?? '';
}

/** `Max-Age` zero or less, or `Expires` in the past: the browser deletes the cookie. */
function isRemoval(attributes: string[]): boolean {
  return attributes.some((attribute) => {
    const name = attributeName(attribute);
    const value = attribute.slice(attribute.indexOf('=') + 1).trim();
    if (name === 'max-age') return /^-?\d+$/.test(value) && Number(value) <= 0;
    if (name === 'expires') return Date.parse(value) <= Date.now();
    return false;
  });
}
