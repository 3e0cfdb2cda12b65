import { WebSocket } from 'ws';

/**
 * Closes a WebSocket and cuts it if the client has not completed the close within `graceMs`. ws alone sends the
 * close frame and then waits up to 30 s for the client's, and a client that never answers (a lost phone, a stalled
 * tab) is not cut before that. Resolves once the socket is closed.
 */
export function closeWithin(
  socket: WebSocket,
  close: { code: number; reason: string; graceMs: number },
): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.terminate();
    }, close.graceMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.close(close.code, close.reason);
  });
}
