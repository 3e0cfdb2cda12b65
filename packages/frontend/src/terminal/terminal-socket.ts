import {
  TERMINAL_WS_PATH,
  TerminalServerFrameSchema,
  type TerminalClientFrame,
  type TerminalServerFrame,
} from '@catalyst/protocol';
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

const RETRY_DELAYS_MS = [250, 1_000, 2_000, 5_000];
/** The server's close code when another client attached to the same terminal. */
const DISPLACED_CLOSE_CODE = 4009;
/** A paste goes in frames of this many bytes, well under what the server takes in one. */
const INPUT_CHUNK_BYTES = 32 * 1024;
/** The server keeps a detached shell for 60 s; past that an attach can only say it ended. */
const GIVE_UP_AFTER_MS = 70_000;
/** Keys typed while reconnecting, sent once the shell is back; more is dropped (a paste into a dead link). */
const MAX_TYPED_AHEAD_CHARS = 4_096;

export class TerminalSocket {
  readonly #options: TerminalSocketOptions;
  #socket: WebSocket | undefined;
  #terminalId: string | undefined;
  #isEnded = false;
  #attempt = 0;
  #droppedAt: number | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #isExpectingReplay = false;
  #isLive = false;
  #typedAhead = '';
  /** The page asked the server to hold the shell's output (output-flow.ts); said again on each new socket. */
  #isOutputHeld = false;

  constructor(options: TerminalSocketOptions) {
    this.#options = options;
    this.#terminalId = options.terminalId;
    this.#connect();
  }

  get terminalId(): string | undefined {
    return this.#terminalId;
  }

  /**
   * The person's keys (or a paste, sent in frames the server takes: at most MAX_TERMINAL_INPUT_BYTES each); while the
   * socket is away, kept (a bounded amount) until it is back.
   */
  write(text: string): void {
    if (this.#isEnded) return;
    const socket = this.#socket;
    if (this.#isLive && socket?.readyState === WebSocket.OPEN) {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; at += INPUT_CHUNK_BYTES) {
        socket.send(bytes.subarray(at, at + INPUT_CHUNK_BYTES));
      }
      return;
    }
    if (this.#typedAhead.length + text.length <= MAX_TYPED_AHEAD_CHARS) this.#typedAhead += text;
  }

  resize(cols: number, rows: number): void {
    this.#sendFrame({ type: 'resize', cols, rows });
  }

  /** The page draws behind the shell (true) or has caught up (false): the server holds its output meanwhile. */
  holdOutput(isHeld: boolean): void {
    if (this.#isOutputHeld === isHeld) return;
    this.#isOutputHeld = isHeld;
    this.#sendFrame({ type: 'flow', paused: isHeld });
  }

  /** Ends the shell and all it started; the server answers with `ended`. */
  close(): void {
    if (this.#isEnded) return;
    if (this.#socket?.readyState === WebSocket.OPEN && this.#terminalId !== undefined) {
      this.#sendFrame({ type: 'close' });
      return;
    }
    this.#end('The terminal was closed.');
  }

  /** The page goes away: the socket closes, the shell lives on for the server's minute. */
  dispose(): void {
    this.#isEnded = true;
    clearTimeout(this.#retry);
    this.#socket?.close(1000, 'page closed');
  }

  #connect(): void {
    const url =
      this.#options.url ??
      `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${TERMINAL_WS_PATH}`;
    const socket = new WebSocket(url, sessionProtocols());
    socket.binaryType = 'arraybuffer';
    this.#socket = socket;
    socket.addEventListener('open', () => {
      const size = this.#options.size();
      this.#sendFrame(
        this.#terminalId === undefined
          ? { type: 'open', ideaId: this.#options.ideaId, ...size }
          : { type: 'attach', ideaId: this.#options.ideaId, terminalId: this.#terminalId, ...size },
      );
      // Each socket starts unheld on the server: a page still drawing behind says so before any output comes.
      if (this.#isOutputHeld) this.#sendFrame({ type: 'flow', paused: true });
    });
    socket.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (event.data instanceof ArrayBuffer) {
        this.#options.onOutput(new Uint8Array(event.data), this.#isExpectingReplay);
        this.#isExpectingReplay = false;
        return;
      }
      if (typeof event.data === 'string') this.#onFrame(event.data);
    });
    socket.addEventListener('close', (event) => {
      if (this.#socket !== socket) return;
      // Another tab or window (a duplicated tab holds the same ids) attached to this shell: it goes on there, and
      // this page lets go instead of taking it back (two pages would push each other off forever).
      if (event.code === DISPLACED_CLOSE_CODE) {
        this.#end('This terminal was opened in another tab or window; it goes on there.');
        return;
      }
      this.#onDropped();
    });
  }

  #onFrame(text: string): void {
    const parsed = TerminalServerFrameSchema.safeParse(safeJson(text));
    if (!parsed.success) return;
    const frame: TerminalServerFrame = parsed.data;
    if (frame.type === 'ready') {
      this.#terminalId = frame.terminalId;
      this.#attempt = 0;
      this.#droppedAt = undefined;
      this.#isExpectingReplay = frame.isReattached;
      this.#isLive = true;
      this.#options.onReady?.(frame.terminalId);
      this.#options.onState({ kind: 'live' });
      if (this.#typedAhead !== '') {
        const typed = this.#typedAhead;
        this.#typedAhead = '';
        this.write(typed);
      }
    } else if (frame.type === 'ended') {
      this.#end(frame.message);
    } else if (frame.code === 'TERMINAL_NOT_FOUND' || this.#terminalId === undefined) {
      this.#end(frame.message);
    }
  }

  #onDropped(): void {
    this.#isLive = false;
    if (this.#isEnded) return;
    this.#droppedAt ??= Date.now();
    if (this.#terminalId === undefined && this.#attempt > 0) {
      this.#end('The terminal could not be opened: the connection to Catalyst failed.');
      return;
    }
    if (Date.now() - this.#droppedAt > GIVE_UP_AFTER_MS) {
      this.#end('The connection to Catalyst was lost for too long, so the terminal ended.');
      return;
    }
    this.#options.onState({ kind: 'reconnecting' });
    const delay = RETRY_DELAYS_MS[Math.min(this.#attempt, RETRY_DELAYS_MS.length - 1)] ?? 5_000;
    this.#attempt += 1;
    this.#retry = setTimeout(() => {
      this.#connect();
    }, delay);
  }

  #end(message: string): void {
    if (this.#isEnded) return;
    this.#isEnded = true;
    clearTimeout(this.#retry);
    this.#options.onState({ kind: 'ended', message });
    this.#socket?.close(1000, 'terminal ended');
  }

  #sendFrame(frame: TerminalClientFrame): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(frame));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
