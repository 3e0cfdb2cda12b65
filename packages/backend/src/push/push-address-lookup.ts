import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './push-services.ts';

/**
 * The name lookup of a push's connection (issue 39, finding 1): a push service's name that resolves to this machine,
 * the LAN or a metadata service (a DNS answer an attacker controls, or one that changed since the subscription) is
 * refused before any byte is sent. The check is on the very addresses the connection then uses, so a name that
 * answers a public address once and a private one the next time (DNS rebinding) gains nothing. One non-public
 * address among a name's answers refuses the name.
 */
export const lookupPublicAddress: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error !== null) {
      callback(error, '', 0);
      return;
    }
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    const first = addresses[0];
    if (refused !== undefined || first === undefined) {
      callback(notPublicError(hostname, refused?.address ?? 'no address'), '', 0);
      return;
    }
    if (options.all === true) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
};

/** An endpoint whose host is an IP address: no lookup happens, so it is checked here; undefined when it may go. */
export function refuseNonPublicLiteral(hostname: string): Error | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0 || isPublicAddress(bare)) return undefined;
  return notPublicError(hostname, bare);
}

/** `code` says the push was refused here, not failed on the way: push-sender.ts does not try it again. */
export class NonPublicAddressError extends Error {
  readonly code = 'ENONPUBLIC';
}

function notPublicError(hostname: string, address: string): NonPublicAddressError {
  return new NonPublicAddressError(
    `${hostname} resolves to ${address}, which is not a public address: no push goes there`,
  );
}
