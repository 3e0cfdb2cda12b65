import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import { TerminalLink, type TerminalLinkEnd } from '@catalyst/client/terminal-link';
import { openBrowserSocket } from '../base/browser-socket.ts';
import { sessionProtocols } from '../base/session-key.ts';

/**
 * One terminal's WebSocket (issue 31, docs/protocol.md): opens a shell on the idea's host, then, whenever the
 * socket drops, attaches to the same shell again by its id (the server keeps it for a minute and replays its recent
 * output), until the shell ends or the page closes it. Bytes travel as binary frames, control as JSON.
 */

export type TerminalState =
  { kind: 'connecting' } | { kind: 'live' } | { kind: 'reconnecting' } | { kind: 'ended'; message: string };

export interface TerminalSocketOptions {
  ideaId: string;
  /** A shell opened earlier (before a reload): attached to instead of opening a new one. */
  terminalId?: string;
  size: () => { cols: number; rows: number };
  onOutput: (bytes: Uint8Array, isReplay: boolean) => void;
  onState: (state: TerminalState) => void;
  /** The server's id for the shell, once it has one. */
  onReady?: (terminalId: string) => void;
  url?: string;
}

/** Keys typed while reconnecting, sent once the shell is back; more is dropped (a paste into a dead link). */
const MAX_TYPED_AHEAD_BYTES = 4_096;

export class TerminalSocket {
  readonly #link: TerminalLink;
  readonly #onState: (state: TerminalState) => void;

  constructor(options: TerminalSocketOptions) {
    this.#onState = options.onState;
    const url =
      options.url ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${TERMINAL_WS_PATH}`;
    this.#link = new TerminalLink({
      ideaId: options.ideaId,
      ...(options.terminalId === undefined ? {} : { terminalId: options.terminalId }),
      size: options.size,
      connect: (events) => openBrowserSocket(url, sessionProtocols(), events),
      onOutput: options.onOutput,
      onLive: (terminalId) => {
        options.onReady?.(terminalId);
        options.onState({ kind: 'live' });
      },
      onDropped: () => {
        options.onState({ kind: 'reconnecting' });
      },
      onEnd: (end) => {
        const message = endMessage(end);
        if (message !== undefined) options.onState({ kind: 'ended', message });
      },
      maxPendingBytes: MAX_TYPED_AHEAD_BYTES,
      retriesOpen: true,
    });
    this.#link.start();
  }

  get terminalId(): string | undefined {
    return this.#link.terminalId;
  }

  /**
   * The person's keys (or a paste, sent in frames the server takes: at most MAX_TERMINAL_INPUT_BYTES each); while the
   * socket is away, kept (a bounded amount) until it is back.
   */
  write(text: string): void {
    this.#link.write(new TextEncoder().encode(text));
  }

  resize(cols: number, rows: number): void {
    this.#link.resize(cols, rows);
  }

  /** The page draws behind the shell (true) or has caught up (false): the server holds its output meanwhile. */
  holdOutput(isHeld: boolean): void {
    this.#link.holdOutput(isHeld);
  }

  /** Ends the shell and all it started; the server answers with `ended`. */
  close(): void {
    if (this.#link.isOver || this.#link.close()) return;
    // No live shell to ask (still opening, or away): the page lets go of it here.
    this.#link.dispose();
    this.#onState({ kind: 'ended', message: 'The terminal was closed.' });
  }

  /** The page goes away: the socket closes, the shell lives on for the server's minute. */
  dispose(): void {
    this.#link.dispose();
  }
}

/** What the page says of the link's end; nothing for its own going away. */
function endMessage(end: TerminalLinkEnd): string | undefined {
  switch (end.kind) {
    case 'ended':
    case 'refused':
    case 'gone':
      return end.message;
    case 'displaced':
      // Another tab or window (a duplicated tab holds the same ids) attached to this shell: it goes on there, and
      // this page lets go instead of taking it back (two pages would push each other off forever).
      return 'This terminal was opened in another tab or window; it goes on there.';
    case 'lost':
      return end.isOpened
        ? 'The connection to Catalyst was lost for too long, so the terminal ended.'
        : 'The terminal could not be opened: the connection to Catalyst failed.';
    case 'disposed':
      return undefined;
  }
}
