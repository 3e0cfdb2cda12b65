import { connect, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { CatalystError } from '../core/catalyst-error.ts';

/**
 * The local host's openTcp (host.ts): a socket to `<address>:<port>`. An IP address, never a name: `localhost`
 * may reach another user's listener on the address the app does not hold (issue 25, finding 6).
 */
export function openLocalTcp(address: string, port: number): Promise<Duplex> {
  if (isIP(address) === 0) {
    return Promise.reject(
      new CatalystError('INVALID_ARGUMENT', `${JSON.stringify(address)} is not an IP address.`),
    );
  }
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (error) => {
      reject(unreachable(port, error.message));
    });
  });
}

export function unreachable(port: number, reason: string): CatalystError {
  return new CatalystError('PORT_UNREACHABLE', `Nothing answers on port ${port} of the host (${reason}).`, {
    details: { port },
  });
}
