import type { FrameSocket } from '@catalyst/client/idea-connection';
import type { LinkSocket } from '@catalyst/client/terminal-link';

/** What a socket of the page tells its user: text frames, binary ones (a terminal's), and its close. */
export interface BrowserSocketEvents {
  onText(text: string): void;
  onBytes?(bytes: Uint8Array): void;
  onClose(code: number): void;
}

/**
 * The browser's WebSocket as the client package's socket (the idea connection's and the terminal link's): resolved
 * once open, rejected when it closes before. Binary frames arrive as bytes.
 */
export function openBrowserSocket(
  url: string,
  protocols: string[],
  events: BrowserSocketEvents,
): Promise<FrameSocket & LinkSocket> {
  const socket = new WebSocket(url, protocols);
  socket.binaryType = 'arraybuffer';
  const isOpen = () => socket.readyState === WebSocket.OPEN;
  return new Promise((resolve, reject) => {
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      resolve({
        get isOpen() {
          return isOpen();
        },
        sendText: (text) => {
          if (!isOpen()) return false;
          socket.send(text);
          return true;
        },
        sendBytes: (bytes, onSent) => {
          if (isOpen()) socket.send(bytes);
          onSent?.();
        },
        get bufferedAmount() {
          return socket.bufferedAmount;
        },
        close: (code, reason) => {
          socket.close(code, reason);
        },
      });
    });
    socket.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (event.data instanceof ArrayBuffer) events.onBytes?.(new Uint8Array(event.data));
      else if (typeof event.data === 'string') events.onText(event.data);
    });
    socket.addEventListener('close', (event) => {
      if (opened) events.onClose(event.code);
      else reject(new Error('the WebSocket did not open'));
    });
  });
}
