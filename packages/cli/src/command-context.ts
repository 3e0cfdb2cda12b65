import type { ApiClient } from './api-client.ts';
import type { IdeaSocket } from './idea-socket.ts';
import type { Interrupts } from './interrupts.ts';
import type { Terminal } from './terminal.ts';

/** What every command works with: the REST API, the WebSocket, the terminal and Ctrl-C. */
export interface CommandContext {
  api: ApiClient;
  openSocket: () => Promise<IdeaSocket>;
  terminal: Terminal;
  interrupts: Interrupts;
}
