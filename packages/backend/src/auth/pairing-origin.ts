import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { isLoopbackHost } from '@catalyst/protocol';

/**
 * Where a pairing link points (issue 29): an address the other device can open. In order:
 *
 * 1. CATALYST_PUBLIC_URL, when set (behind a reverse proxy, only it is right);
 * 2. the address the asking browser itself used, when it is not loopback (a laptop on `http://192.168.1.20:7433`:
 *    the phone on the same network reaches that too);
 * 3. the address Catalyst listens on, when it is not loopback; for a wildcard (`0.0.0.0`, `::`) this machine's
 *    first network address, since a phone cannot open `0.0.0.0`;
 * 4. else the asking browser's own address, or the listen address: Catalyst on loopback is for this machine only,
 *    and the page says so beside the link.
 */

export interface PairingOriginInput {
  /** CATALYST_PUBLIC_URL, an origin without a trailing `/`. */
  readonly publicUrl?: string | undefined;
  /** The `Host` header of the request asking for a link; none for the link printed at start-up. */
  readonly requestHost?: string | undefined;
  readonly bind: string;
  readonly port: number;
  /** This machine's network addresses (lanAddressesOf), for a wildcard bind. */
  readonly lanAddresses: readonly string[];
}

export function pairingOrigin(input: PairingOriginInput): string {
  if (input.publicUrl !== undefined) return input.publicUrl;
  const requestHost = hostOfHeader(input.requestHost);
  if (requestHost !== undefined && !isLoopbackHost(requestHost.hostname)) return requestHost.origin;
  if (!isLoopbackHost(input.bind)) return listenOrigin(input);
  return requestHost?.origin ?? listenOrigin(input);
}

/** Whether other devices may reach Catalyst, so that a pairing QR code is worth printing at start-up. */
export function isReachableFromElsewhere(config: { publicUrl?: string | undefined; bind: string }): boolean {
  return config.publicUrl !== undefined || !isLoopbackHost(config.bind);
}

/**
 * The addresses another device may reach this machine by, from os.networkInterfaces(): IPv4 first, then IPv6
 * that is neither loopback nor link-local (a link-local address needs a zone a URL cannot carry well).
 */
export function lanAddressesOf(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const external = all.filter((info) => !info.internal);
  const v4 = external.filter((info) => info.family === 'IPv4').map((info) => info.address);
  const v6 = external
    .filter((info) => info.family === 'IPv6' && !/^fe80:/i.test(info.address))
    .map((info) => info.address);
  return [...v4, ...v6];
}

function listenOrigin(input: PairingOriginInput): string {
  const address = isWildcard(input.bind) ? (input.lanAddresses[0] ?? input.bind) : input.bind;
  const host = isIP(address) === 6 ? `[${address}]` : address;
  return `http://${host}:${String(input.port)}`;
}

function isWildcard(bind: string): boolean {
  return bind === '0.0.0.0' || (isIP(bind) === 6 && /^[0:]+$/.test(bind));
}

/** A `Host` header as an origin (Catalyst itself speaks plain http), or undefined when it is not a host. */
function hostOfHeader(header: string | undefined): { hostname: string; origin: string } | undefined {
  if (header === undefined || header === '' || /[/?#@\s\\]/.test(header)) return undefined;
  try {
    const url = new URL(`http://${header}`);
    return { hostname: url.hostname, origin: url.origin };
  } catch {
    return undefined;
  }
}
