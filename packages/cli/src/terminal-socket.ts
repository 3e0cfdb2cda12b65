import type { ClientRequest, IncomingMessage } from 'node:http';
import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import { WebSocket } from 'ws';
import { unreachable } from './api-client.ts';
import { CliError } from './cli-error.ts';

/** A terminal's own WebSocket (`/ws/terminal`, docs/protocol.md), let in by the token like the API. */
export async function openTerminalSocket(url: string, token: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${TERMINAL_WS_PATH}`, {
    headers: { authorization: `Bearer ${token}` },
    perMessageDeflate: false,
    handshakeTimeout: 10_000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (request: ClientRequest, response: IncomingMessage) => {
      request.destroy();
      const status = response.statusCode ?? 0;
      reject(
        status === 401
          ? new CliError('UNAUTHORIZED', 'Catalyst refused the access token.')
          : new CliError('UNEXPECTED_RESPONSE', `Catalyst refused the terminal with HTTP ${String(status)}.`),
      );
    });
    socket.once('error', (error) => {
      reject(unreachable(url, error));
    });
  });
  // After the open, errors arrive as a close; without a listener ws would throw them.
  socket.on('error', () => undefined);
  return socket;
}
