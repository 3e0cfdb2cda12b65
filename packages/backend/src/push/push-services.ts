import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * Where Catalyst may POST a push (issue 39, finding 1): a subscription's endpoint comes from a browser, so any
 * signed-in browser could otherwise make Catalyst POST to its own port, a cloud's metadata service or the LAN.
 * Only the hosts of the push services browsers use are taken, plus those CATALYST_PUSH_SERVICES names; and
 * whatever a name resolves to when a push goes out must be a public address (push-address-lookup.ts).
 */

/** `*.suffix` takes every name under suffix, never suffix itself. */
export const KNOWN_PUSH_SERVICES: readonly string[] = [
  // Chrome, Edge on Android, Opera, Samsung Internet, Brave: Firebase Cloud Messaging.
  'fcm.googleapis.com',
  // Firefox: Mozilla's autopush.
  'updates.push.services.mozilla.com',
  '*.push.services.mozilla.com',
  // Safari (macOS 13+, iOS 16.4+ home-screen apps): web.push.apple.com.
  '*.push.apple.com',
  // Edge on Windows: Windows Push Notification Services (wns2-<region>.notify.windows.com).
  '*.notify.windows.com',
];

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A DNS name of two labels or more whose last is letters (so never an IP address), or `*.` and such a name. */
const PUSH_SERVICE_PATTERN = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)+[a-z]{2,63}$`);

/** One entry of CATALYST_PUSH_SERVICES: `push.example.com` or `*.push.example.com`, case-insensitive. */
export const PushServiceSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(PUSH_SERVICE_PATTERN, 'is not a host name (push.example.com) or *.suffix (*.push.example.com)');

/** CATALYST_PUSH_SERVICES: a comma list of PushServiceSchema; empty entries are ignored. */
export const PushServiceListSchema = z
  .string()
  .transform((text) => text.split(',').filter((entry) => entry.trim() !== ''))
  .pipe(z.array(PushServiceSchema));

/** Whether `hostname` (as URL.hostname gives it) is one of `services`. */
export function isPushServiceHost(hostname: string, services: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return services.some((service) =>
    service.startsWith('*.') ? host.endsWith(service.slice(1)) : host === service,
  );
}

/**
 * Why `endpoint` is not one Catalyst posts to, as a sentence for the person whose browser sent it; undefined when
 * it is. https: on the default port only: every push service listens there.
 */
export function whyNotPushEndpoint(endpoint: URL, extraServices: readonly string[]): string | undefined {
  const services = [...KNOWN_PUSH_SERVICES, ...extraServices];
  if (
    endpoint.protocol === 'https:' &&
    endpoint.port === '' &&
    isPushServiceHost(endpoint.hostname, services)
  ) {
    return undefined;
  }
  return (
    `${endpoint.origin} is not a known push service (${services.join(', ')}, on https: port 443), so Catalyst ` +
    'sends no pushes there. A browser with another push service works once its host is added to ' +
    'CATALYST_PUSH_SERVICES (a comma list of host names or *.suffix).'
  );
}

/**
 * Addresses a push never goes to: this machine, the private and shared networks, link-local (a cloud's metadata
 * service at 169.254.169.254), multicast and the reserved ranges.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
// IPv6 that carries an IPv4 address on to its network (IPv4-compatible, NAT64, 6to4) is refused whole: through a
// gateway it reaches that IPv4 address, whatever it is; no push service is reached that way.
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** False for an address a push never goes to, and for what is no IP address at all. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 4) return !NON_PUBLIC.check(bare, 'ipv4');
  if (family !== 6) return false;
  const mapped = mappedIpv4Of(bare);
  return mapped === undefined ? !NON_PUBLIC.check(bare, 'ipv6') : isPublicAddress(mapped);
}

/** The IPv4 address in an IPv4-mapped IPv6 one (::ffff:127.0.0.1, or ::ffff:7f00:1 as URL writes it). */
function mappedIpv4Of(ipv6: string): string | undefined {
  const canonical = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (match === null) return undefined;
  const [high, low] = [Number.parseInt(match[1] ?? '', 16), Number.parseInt(match[2] ?? '', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
