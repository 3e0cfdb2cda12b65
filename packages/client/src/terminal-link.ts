import {
  MAX_TERMINAL_INPUT_BYTES,
  TerminalServerFrameSchema,
  type ErrorCode,
  type TerminalClientFrame,
  type TerminalEndReason,
  type TerminalServerFrame,
} from '@catalyst/protocol';
import { parseJson } from './lenient-parse.ts';

/**
 * One terminal's link (issue 31, docs/protocol.md), as the web app's terminal and `catalyst shell` both keep it: it
 * opens a shell on the idea's host, and whenever the socket drops (not a clean end of the shell) attaches to the
 * same shell again by its id, with backoff, for as long as the server keeps a detached shell. Input is sent only
 * while the shell is live (what comes meanwhile is kept, a bounded amount, and sent once it is back); output the
 * client cannot take yet is held back on the server (a `flow` frame), said again on each new socket, which the
 * server starts unheld. The socket itself is the client's (`connect`): the browser's WebSocket or ws in Node.
 */

/** An open WebSocket, as the link uses it. */
export interface LinkSocket {
  /** False from the moment it starts closing: what is written then is kept for the next socket. */
  readonly isOpen: boolean;
  sendText(text: string): void;
  /** `onSent`: the bytes left for the network (where the socket cannot tell, at once). */
  sendBytes(bytes: Uint8Array, onSent?: () => void): void;
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
}

/** What a socket tells the link once open; `onClose` also when it could not open. */
export interface LinkSocketEvents {
  onText(text: string): void;
  onBytes(bytes: Uint8Array): void;
  onClose(code: number): void;
}

/** A refusal that another try would meet again (a refused login, a foreign origin): the link ends with it. */
export class LinkRefused extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'LinkRefused';
    this.code = code;
  }
}

/** How the link ended. */
export type TerminalLinkEnd =
  /** The server's `ended`: the shell exited, was closed, its idea deleted, … (`exitCode` when it exited). */
  | { kind: 'ended'; reason: TerminalEndReason; exitCode: number | undefined; message: string }
  /**
   * The server refused to open a shell (its error frame's code), or the connection was refused (`LinkRefused`, its
   * cause kept).
   */
  | { kind: 'refused'; code: string; message: string; cause?: unknown }
  /** An attach found no shell: it ended while the connection was away (the server's sentence). */
  | { kind: 'gone'; message: string }
  /** Another client (a tab, a window, a command) attached to this shell: it goes on there. */
  | { kind: 'displaced' }
  /** The connection could not be had again in time, or dropped while input was in flight (`endOnDropAfterInput`). */
  | { kind: 'lost'; isOpened: boolean; isInputInFlight: boolean }
  /** `dispose`: the client stopped following; a shell still open lives on for the server's minute. */
  | { kind: 'disposed' };

export interface TerminalLinkOptions {
  ideaId: string;
  /** A shell opened earlier (before a reload): attached to instead of opening a new one. */
  terminalId?: string;
  size: () => { cols: number; rows: number };
  /** A new socket to the terminal's path, resolved once open; rejects when it cannot open (`LinkRefused` to stop). */
  connect: (events: LinkSocketEvents) => Promise<LinkSocket>;
  /** The shell's output; `isReplay` for the first bytes after an attach (its recent output, seen in part). */
  onOutput: (bytes: Uint8Array, isReplay: boolean) => void;
  /** The shell is this link's (again, after `wasDropped`), under its server id. */
  onLive: (terminalId: string, wasDropped: boolean) => void;
  /** The socket dropped; the link attaches again (`isFirst`: the first drop since the shell was last live). */
  onDropped: (isFirst: boolean) => void;
  /** An error frame the shell goes on after (an input refused, say): a sentence for the person. */
  onNotice?: (message: string) => void;
  onEnd: (end: TerminalLinkEnd) => void;
  /** The server keeps a detached shell for 60 s; past this an attach can only say it ended. */
  giveUpAfterMs?: number;
  /**
   * A drop after input went out on the socket ends the link: the command's piped input, of which some may not have
   * reached the shell (going on would leave a gap in the middle of it).
   */
  endOnDropAfterInput?: boolean;
  /** Input kept while the shell is away, in bytes; more is dropped (a paste into a dead link). */
  maxPendingBytes?: number;
  /**
   * A socket that drops before the shell opened is tried once more (the page: a reload's first socket may meet a
   * restarting Catalyst); without it, the link ends at once (the command: a second open would start a second shell).
   */
  retriesOpen?: boolean;
}

const RETRY_DELAYS_MS = [250, 1_000, 2_000, 5_000];
/** The server's close code when another client attached to the same terminal. */
export const DISPLACED_CLOSE_CODE = 4009;
/** Input goes in frames of at most this many bytes, well under what the server takes in one. */
const INPUT_CHUNK_BYTES = Math.min(32 * 1024, MAX_TERMINAL_INPUT_BYTES);
const DEFAULT_GIVE_UP_AFTER_MS = 70_000;
const DEFAULT_MAX_PENDING_BYTES = 64 * 1024;

export class TerminalLink {
  readonly #options: TerminalLinkOptions;
  #socket: LinkSocket | undefined;
  #terminalId: string | undefined;
  #isLive = false;
  #isOver = false;
  #isExpectingReplay = false;
  #droppedAt: number | undefined;
  #attempt = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Input went out on the current socket: its bytes may be in flight when it drops. */
  #hasSentInput = false;
  /** The client asked the server to hold the shell's output; said again on each new socket. */
  #isOutputHeld = false;

  constructor(options: TerminalLinkOptions) {
    this.#options = options;
    this.#terminalId = options.terminalId;
  }

  get terminalId(): string | undefined {
    return this.#terminalId;
  }

  get isLive(): boolean {
    return this.#isLive;
  }

  get isOver(): boolean {
    return this.#isOver;
  }

  get isOutputHeld(): boolean {
    return this.#isOutputHeld;
  }

  /** What the live socket has not sent yet (0 while the shell is away). */
  get bufferedAmount(): number {
    return this.#isLive ? (this.#socket?.bufferedAmount ?? 0) : 0;
  }

  /** Opens the shell (or attaches to `terminalId`). */
  start(): void {
    this.#connect();
  }

  /**
   * The person's keys, a paste or piped input, in frames the server takes; while the shell is away, kept (up to
   * `maxPendingBytes`) until it is back. `onSent` once the bytes left (kept ones: at once).
   */
  write(bytes: Uint8Array, onSent?: () => void): void {
    if (this.#isOver) {
      onSent?.();
      return;
    }
    const socket = this.#socket;
    if (!this.#isLive || socket?.isOpen !== true) {
      if (this.#pendingBytes + bytes.length <= (this.#options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES)) {
        this.#pending.push(bytes);
        this.#pendingBytes += bytes.length;
      }
      onSent?.();
      return;
    }
    this.#hasSentInput = true;
    for (let at = 0; at < bytes.length; at += INPUT_CHUNK_BYTES) {
      const isLast = at + INPUT_CHUNK_BYTES >= bytes.length;
      socket.sendBytes(bytes.subarray(at, at + INPUT_CHUNK_BYTES), isLast ? onSent : undefined);
    }
    if (bytes.length === 0) onSent?.();
  }

  resize(cols: number, rows: number): void {
    if (this.#isLive) this.#sendFrame({ type: 'resize', cols, rows });
  }

  /** The client is behind on the output (true) or has caught up (false): the server holds it meanwhile. */
  holdOutput(isHeld: boolean): void {
    if (this.#isOutputHeld === isHeld) return;
    this.#isOutputHeld = isHeld;
    this.#sendFrame({ type: 'flow', paused: isHeld });
  }

  /** Ends the shell and all it started; the server answers with `ended`. False when there is no shell to end. */
  close(): boolean {
    if (this.#isOver || !this.#isLive) return false;
    this.#sendFrame({ type: 'close' });
    return true;
  }

  /** Stops following: the socket closes; a shell still open lives on for the server's minute. */
  dispose(): void {
    this.#end({ kind: 'disposed' });
  }

  #connect(): void {
    let socket: LinkSocket | undefined;
    const isCurrent = () => socket !== undefined && this.#socket === socket && !this.#isOver;
    const events: LinkSocketEvents = {
      onText: (text) => {
        if (isCurrent()) this.#onFrame(text);
      },
      onBytes: (bytes) => {
        if (!isCurrent()) return;
        const isReplay = this.#isExpectingReplay;
        this.#isExpectingReplay = false;
        this.#options.onOutput(bytes, isReplay);
      },
      onClose: (code) => {
        if (isCurrent()) this.#onDropped(code);
      },
    };
    this.#options.connect(events).then(
      (opened) => {
        if (this.#isOver) {
          opened.close(1000, 'terminal ended');
          return;
        }
        socket = opened;
        this.#socket = opened;
        this.#hasSentInput = false;
        const { ideaId } = this.#options;
        const size = this.#options.size();
        this.#sendFrame(
          this.#terminalId === undefined
            ? { type: 'open', ideaId, ...size }
            : { type: 'attach', ideaId, terminalId: this.#terminalId, ...size },
        );
        // Each socket starts unheld on the server: a client still behind says so before any output comes.
        if (this.#isOutputHeld) this.#sendFrame({ type: 'flow', paused: true });
      },
      (error: unknown) => {
        if (this.#isOver) return;
        if (error instanceof LinkRefused) {
          this.#end({ kind: 'refused', code: error.code, message: error.message, cause: error.cause });
        } else this.#onDropped(undefined);
      },
    );
  }

  #onFrame(text: string): void {
    const frame = parseFrame(text);
    if (frame === undefined) {
      // Not echoed: a frame's text at a raw terminal could carry escape sequences.
      this.#options.onNotice?.(
        `Catalyst sent a frame this client cannot read (${String(text.length)} characters); it was ignored.`,
      );
      return;
    }
    if (frame.type === 'ready') {
      const wasDropped = this.#droppedAt !== undefined;
      this.#terminalId = frame.terminalId;
      this.#isExpectingReplay = frame.isReattached;
      this.#droppedAt = undefined;
      this.#attempt = 0;
      this.#isLive = true;
      this.#options.onLive(frame.terminalId, wasDropped);
      const pending = this.#pending;
      this.#pending = [];
      this.#pendingBytes = 0;
      for (const bytes of pending) this.write(bytes);
    } else if (frame.type === 'ended') {
      this.#end({
        kind: 'ended',
        reason: frame.reason,
        exitCode: frame.exitCode ?? undefined,
        message: frame.message,
      });
    } else if (frame.code === 'TERMINAL_NOT_FOUND' && this.#terminalId !== undefined) {
      this.#end({ kind: 'gone', message: frame.message });
    } else if (this.#terminalId === undefined) {
      this.#end({ kind: 'refused', code: frame.code satisfies ErrorCode, message: frame.message });
    } else {
      this.#options.onNotice?.(frame.message);
    }
  }

  /** `code` undefined: the socket could not even open. */
  #onDropped(code: number | undefined): void {
    const wasLive = this.#isLive;
    this.#isLive = false;
    this.#socket = undefined;
    if (code === DISPLACED_CLOSE_CODE) {
      this.#end({ kind: 'displaced' });
      return;
    }
    const isOpened = this.#terminalId !== undefined;
    if (!isOpened && (this.#attempt > 0 || this.#options.retriesOpen !== true)) {
      this.#end({ kind: 'lost', isOpened, isInputInFlight: false });
      return;
    }
    if (this.#options.endOnDropAfterInput === true && this.#hasSentInput) {
      this.#end({ kind: 'lost', isOpened, isInputInFlight: true });
      return;
    }
    const isFirst = this.#droppedAt === undefined;
    this.#droppedAt ??= Date.now();
    if (Date.now() - this.#droppedAt > (this.#options.giveUpAfterMs ?? DEFAULT_GIVE_UP_AFTER_MS)) {
      this.#end({ kind: 'lost', isOpened, isInputInFlight: false });
      return;
    }
    if (wasLive || isFirst) this.#options.onDropped(isFirst);
    const delay = RETRY_DELAYS_MS[Math.min(this.#attempt, RETRY_DELAYS_MS.length - 1)] ?? 5_000;
    this.#attempt += 1;
    this.#retry = setTimeout(() => {
      this.#connect();
    }, delay);
  }

  #end(end: TerminalLinkEnd): void {
    if (this.#isOver) return;
    this.#isOver = true;
    this.#isLive = false;
    clearTimeout(this.#retry);
    this.#socket?.close(1000, end.kind === 'disposed' ? 'page closed' : 'terminal ended');
    this.#socket = undefined;
    this.#options.onEnd(end);
  }

  #sendFrame(frame: TerminalClientFrame): void {
    this.#socket?.sendText(JSON.stringify(frame));
  }
}

function parseFrame(text: string): TerminalServerFrame | undefined {
  const parsed = TerminalServerFrameSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : undefined;
}
