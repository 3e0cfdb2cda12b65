import {
  MAX_TERMINAL_INPUT_BYTES,
  TerminalServerFrameSchema,
  type IdeaId,
  type TerminalClientFrame,
  type TerminalServerFrame,
} from '@catalyst/protocol';
import { WebSocket, type RawData } from 'ws';
import { CliError, isCliError } from './cli-error.ts';
import { ExitCode, type ExitCodeValue } from './exit-codes.ts';
import type { InputSink } from './input-pump.ts';
import { SeenOutput } from './seen-output.ts';

/**
 * `catalyst shell`'s connection to one terminal (issue 31, docs/protocol.md), as the page's `terminal-socket.ts`
 * keeps it: it opens a shell, and whenever the socket drops (not a clean end of the shell) attaches to the same
 * shell again by its id, with backoff, for as long as the server keeps a detached shell. The server's replay is
 * written from where the printed output stopped. One short line on stderr says the connection was lost, one that it
 * is back. Input is sent only while the shell is live (an `InputSink`; the pump pauses reading otherwise). Output
 * the command's stdout cannot take yet is held back on the server (a `flow` frame) until it can.
 */

export interface ShellLinkOptions {
  ideaId: IdeaId;
  /**
   * Input comes from a pipe or a file, not typed: what was sent on a socket that dropped may not have reached the
   * shell, and going on would leave a gap in the middle of it, so a drop then ends the command instead.
   */
  isInputPiped: boolean;
  openSocket: () => Promise<WebSocket>;
  size: () => { cols: number; rows: number };
  /**
   * The shell's output (stdout). False: it is buffered, and no more should come until `outputDrained()` (stdout's
   * `drain`): the server holds the shell's output back meanwhile.
   */
  onOutput: (bytes: Buffer) => boolean;
  /** One line for the person (stderr). */
  onNotice: (line: string) => void;
  /** The shell became live, or stopped being (a drop): the input pump looks again. */
  onReadiness: () => void;
}

const RETRY_DELAYS_MS = [250, 1_000, 2_000, 5_000];
/** The server keeps a detached shell for 60 s; past that an attach can only say it ended. */
const GIVE_UP_AFTER_MS = 65_000;
/** The server's close code when another client attached to the same terminal. */
const DISPLACED_CLOSE_CODE = 4009;
/** Input goes in frames of at most this many bytes, well under what the server takes in one. */
const INPUT_CHUNK_BYTES = Math.min(32 * 1024, MAX_TERMINAL_INPUT_BYTES);
/**
 * A path that died without a close (a laptop's sleep, a changed network) is noticed by an unanswered ping: well
 * within the server's minute, so the attach still finds the shell.
 */
const PING_EVERY_MS = 10_000;
/** Ctrl-D: what a shell reads as the end of its input at the start of a line. */
const END_OF_INPUT = Buffer.from([4]);

export class ShellLink {
  readonly #options: ShellLinkOptions;
  readonly #seen = new SeenOutput();
  readonly #outcome: Promise<ExitCodeValue>;
  #settle: (outcome: ExitCodeValue | CliError) => void = () => undefined;
  #socket: WebSocket | undefined;
  #terminalId: string | undefined;
  #isLive = false;
  #isFinished = false;
  #isExpectingReplay = false;
  #droppedAt: number | undefined;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  /** Input read while the socket was going away (at most a chunk or two: the pump pauses), sent once back. */
  #pending: Buffer[] = [];
  /** Input went out on the current socket: its bytes may be in flight when it drops. */
  #hasSentInput = false;
  /** Input went out since the last ping: the server may be holding it back (a full pty), not reading pongs. */
  #hasSentSincePing = false;
  /** stdout has taken no more for now: the server holds the output back (said again on a new socket). */
  #isOutputHeld = false;

  constructor(options: ShellLinkOptions) {
    this.#options = options;
    this.#outcome = new Promise<ExitCodeValue>((resolve, reject) => {
      this.#settle = (outcome) => {
        if (outcome instanceof CliError) reject(outcome);
        else resolve(outcome);
      };
    });
  }

  /** Opens the shell; settles when it ends (its exit code as 0 or 1), or rejects with why it could not go on. */
  async run(): Promise<ExitCodeValue> {
    const socket = await this.#options.openSocket();
    this.#follow(socket, { type: 'open', ideaId: this.#options.ideaId, ...this.#options.size() });
    return this.#outcome;
  }

  /** Stops following (the command ends): the socket closes, a shell still open lives on for the server's minute. */
  stop(): void {
    this.#finish(ExitCode.failed);
  }

  resize(): void {
    if (this.#isLive) this.#sendFrame({ type: 'resize', ...this.#options.size() });
  }

  readonly input: InputSink = {
    // Nothing more is typed into a shell whose output waits for stdout: its echo would only pile up behind.
    isReady: () => this.#isLive && !this.#isOutputHeld,
    bufferedBytes: () => (this.#isLive ? (this.#socket?.bufferedAmount ?? 0) : 0),
    send: (chunk, onSent) => {
      this.#sendInput(chunk, onSent);
    },
    end: () => {
      this.#sendInput(END_OF_INPUT, () => undefined);
    },
  };

  #sendInput(chunk: Buffer, onSent: () => void): void {
    const socket = this.#socket;
    if (!this.#isLive || socket?.readyState !== WebSocket.OPEN) {
      this.#pending.push(chunk);
      onSent();
      return;
    }
    this.#hasSentInput = true;
    this.#hasSentSincePing = true;
    for (let at = 0; at < chunk.length; at += INPUT_CHUNK_BYTES) {
      const isLast = at + INPUT_CHUNK_BYTES >= chunk.length;
      socket.send(chunk.subarray(at, at + INPUT_CHUNK_BYTES), { binary: true }, () => {
        if (isLast) onSent();
      });
    }
  }

  #follow(socket: WebSocket, first: TerminalClientFrame): void {
    this.#socket = socket;
    this.#hasSentInput = false;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (this.#socket !== socket || this.#isFinished) return;
      if (isBinary) this.#onOutput(toBuffer(data));
      else this.#onFrame(toBuffer(data));
    });
    let isAnswered = true;
    socket.on('pong', () => (isAnswered = true));
    socket.on('message', () => (isAnswered = true));
    const pings = setInterval(() => {
      // While the server holds our input back (the shell does not read it yet), it reads nothing of ours, pongs
      // included: input on its way keeps the socket, and only a quiet, unanswered one counts as dead.
      const isSending = this.#hasSentSincePing || socket.bufferedAmount > 0;
      this.#hasSentSincePing = false;
      if (!isAnswered && !isSending) socket.terminate();
      else socket.ping();
      isAnswered = false;
    }, PING_EVERY_MS);
    pings.unref();
    socket.once('close', (code: number) => {
      clearInterval(pings);
      if (this.#socket === socket && !this.#isFinished) this.#onDropped(code);
    });
    this.#sendFrame(first);
  }

  #onOutput(bytes: Buffer): void {
    const fresh = this.#isExpectingReplay ? this.#seen.unseenPartOf(bytes) : bytes;
    this.#isExpectingReplay = false;
    if (fresh.length === 0) return;
    this.#seen.append(fresh);
    if (!this.#options.onOutput(fresh)) this.#holdOutput(true);
  }

  /** stdout has taken what it buffered: the output comes again. */
  outputDrained(): void {
    this.#holdOutput(false);
  }

  #holdOutput(isHeld: boolean): void {
    if (this.#isOutputHeld === isHeld) return;
    this.#isOutputHeld = isHeld;
    if (this.#isLive) this.#sendFrame({ type: 'flow', paused: isHeld });
    this.#options.onReadiness();
  }

  #onFrame(bytes: Buffer): void {
    const frame = parseFrame(bytes);
    if (frame === undefined) {
      // Not echoed: a frame's text at a raw terminal could carry escape sequences.
      this.#options.onNotice(
        `catalyst: Catalyst sent a frame this command cannot read (${String(bytes.length)} bytes); it was ignored.`,
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
      // A new socket starts unpaused on the server.
      if (this.#isOutputHeld) this.#sendFrame({ type: 'flow', paused: true });
      if (wasDropped) this.#options.onNotice('catalyst: reconnected; the same shell goes on.');
      const pending = this.#pending;
      this.#pending = [];
      for (const chunk of pending) this.#sendInput(chunk, () => undefined);
      this.#options.onReadiness();
    } else if (frame.type === 'ended') {
      if (frame.reason !== 'exited') this.#options.onNotice(`catalyst: ${frame.message}`);
      this.#finish(frame.reason === 'exited' && frame.exitCode === 0 ? ExitCode.completed : ExitCode.failed);
    } else if (frame.code === 'TERMINAL_NOT_FOUND') {
      this.#finish(new CliError(frame.code, 'The shell ended while the connection to Catalyst was lost.'));
    } else if (this.#terminalId === undefined) {
      this.#finish(new CliError(frame.code, frame.message));
    } else {
      this.#options.onNotice(`catalyst: ${frame.message}`);
    }
  }

  #onDropped(code: number): void {
    this.#isLive = false;
    this.#socket = undefined;
    this.#options.onReadiness();
    if (this.#terminalId === undefined) {
      this.#finish(
        new CliError('CONNECTION_LOST', 'The connection to Catalyst was lost before the shell opened.'),
      );
      return;
    }
    if (code === DISPLACED_CLOSE_CODE) {
      this.#options.onNotice(
        'catalyst: this shell was opened elsewhere (a page or another command); it goes on there.',
      );
      this.#finish(ExitCode.failed);
      return;
    }
    if (this.#options.isInputPiped && this.#hasSentInput) {
      this.#finish(
        new CliError(
          'CONNECTION_LOST',
          'The connection to Catalyst was lost while the piped input was being sent: some of it may not have reached the shell, so the command stops rather than go on with a gap (the shell ends within a minute).',
        ),
      );
      return;
    }
    if (this.#droppedAt === undefined) {
      this.#droppedAt = Date.now();
      this.#options.onNotice('catalyst: lost the connection to Catalyst; reconnecting to the same shell…');
    }
    this.#scheduleAttach(this.#terminalId);
  }

  #scheduleAttach(terminalId: string): void {
    if (Date.now() - (this.#droppedAt ?? Date.now()) > GIVE_UP_AFTER_MS) {
      this.#finish(
        new CliError(
          'CONNECTION_LOST',
          'Catalyst could not be reached again within a minute; the shell has ended.',
        ),
      );
      return;
    }
    const delay = RETRY_DELAYS_MS[Math.min(this.#attempt, RETRY_DELAYS_MS.length - 1)] ?? 5_000;
    this.#attempt += 1;
    this.#retry = setTimeout(() => {
      this.#options.openSocket().then(
        (socket) => {
          if (this.#isFinished) socket.close(1000);
          else {
            const { ideaId } = this.#options;
            this.#follow(socket, { type: 'attach', ideaId, terminalId, ...this.#options.size() });
          }
        },
        (error: unknown) => {
          // A refused token will not be let in on the next try either; Catalyst unreachable, or a proxy's error
          // page while it restarts, may be gone on the next.
          if (isCliError(error) && (error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN_ORIGIN')) {
            this.#finish(error);
          } else if (!this.#isFinished) this.#scheduleAttach(terminalId);
        },
      );
    }, delay);
  }

  #finish(outcome: ExitCodeValue | CliError): void {
    if (this.#isFinished) return;
    this.#isFinished = true;
    this.#isLive = false;
    clearTimeout(this.#retry);
    this.#socket?.close(1000);
    this.#settle(outcome);
  }

  #sendFrame(frame: TerminalClientFrame): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(frame));
  }
}

function parseFrame(bytes: Buffer): TerminalServerFrame | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = TerminalServerFrameSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
