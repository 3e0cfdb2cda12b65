import type { ApiClient } from './api-client.ts';
import type { IdeaSocket } from './idea-socket.ts';
import type { Interrupts } from './interrupts.ts';
import type { Terminal } from './terminal.ts';
import type { WebSocket } from 'ws';

/** What every command works with: the REST API, the WebSocket, the terminal and Ctrl-C. */
export interface CommandContext {
  api: ApiClient;
  openSocket: () => Promise<IdeaSocket>;
  /** A terminal's own WebSocket (`catalyst shell`). */
  openTerminalSocket: () => Promise<WebSocket>;
  terminal: Terminal;
  interrupts: Interrupts;
}
