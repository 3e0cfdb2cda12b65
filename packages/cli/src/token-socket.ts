import type { ClientRequest, IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { unreachable } from './api-client.ts';
import { CliError, isCliError } from './cli-error.ts';

/**
 * A WebSocket to one of Catalyst's paths (`/ws`, `/ws/terminal`), let in by the token as the API is; resolves once
 * open, rejects with a CliError saying why it was refused or could not be reached.
 */
export async function openTokenSocket(url: string, path: string, token: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    perMessageDeflate: false,
    // A listener that takes the connection but never answers the upgrade must not hang the command.
    handshakeTimeout: 10_000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (request: ClientRequest, response: IncomingMessage) => {
      readRefusal(request, response).then(reject, reject);
    });
    socket.once('error', (error) => {
      reject(unreachable(url, error));
    });
  });
  return socket;
}

/** Catalyst refused the token or the origin: trying again meets the same answer. */
export function isAccessRefused(error: unknown): error is CliError {
  return isCliError(error) && (error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN_ORIGIN');
}

async function readRefusal(request: ClientRequest, response: IncomingMessage): Promise<CliError> {
  const chunks: Buffer[] = [];
  for await (const chunk of response)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  request.destroy();
  const text = Buffer.concat(chunks).toString('utf8').trim();
  const status = response.statusCode ?? 0;
  if (status === 401) return new CliError('UNAUTHORIZED', text || 'Catalyst refused the access token.');
  if (status === 403) return new CliError('FORBIDDEN_ORIGIN', text || 'Catalyst refused the connection.');
  return new CliError(
    'UNEXPECTED_RESPONSE',
    `Catalyst refused the WebSocket with HTTP ${String(status)}: ${text}`,
  );
}
