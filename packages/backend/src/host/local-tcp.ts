import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { CatalystError } from '../core/catalyst-error.ts';

/**
 * The local host's openTcp (host.ts): a socket to `localhost:<port>`. Node tries every address `localhost` resolves
 * to (autoSelectFamily), as sshd does for a forwarded channel: a dev server may listen on `::1` alone.
 */
export function openLocalTcp(port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: 'localhost', port, autoSelectFamily: true });
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
