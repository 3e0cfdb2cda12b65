import { ErrorCodeSchema, type IdeaId } from '@catalyst/protocol';
import {
  LinkRefused,
  TerminalLink,
  type LinkSocket,
  type LinkSocketEvents,
  type TerminalLinkEnd,
} from '@catalyst/client/terminal-link';
import type { RawData, WebSocket } from 'ws';
import { CliError, isCliError } from './cli-error.ts';
import { ExitCode, type ExitCodeValue } from './exit-codes.ts';
import type { InputSink } from './input-pump.ts';
import { SeenOutput } from './seen-output.ts';
import { isAccessRefused } from './token-socket.ts';

/**
 * `catalyst shell`'s connection to one terminal (issue 31, docs/protocol.md): the client package's terminal link,
 * as the page's `terminal-socket.ts` keeps it: it opens a shell, and whenever the socket drops (not a clean end of
 * the shell) attaches to the same shell again by its id, with backoff, for as long as the server keeps a detached
 * shell. The server's replay is written from where the printed output stopped. One short line on stderr says the connection was lost, one that it
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

/** The server keeps a detached shell for 60 s; past that an attach can only say it ended. */
const GIVE_UP_AFTER_MS = 65_000;
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
  readonly #link: TerminalLink;
  readonly #outcome: Promise<ExitCodeValue>;
  #settle: (outcome: ExitCodeValue | CliError) => void = () => undefined;

  constructor(options: ShellLinkOptions) {
    this.#options = options;
    this.#outcome = new Promise<ExitCodeValue>((resolve, reject) => {
      this.#settle = (outcome) => {
        if (outcome instanceof CliError) reject(outcome);
        else resolve(outcome);
      };
    });
    this.#link = new TerminalLink({
      ideaId: options.ideaId,
      size: options.size,
      connect: (events) => this.#connect(events),
      onOutput: (bytes, isReplay) => {
        this.#onOutput(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), isReplay);
      },
      onLive: (_terminalId, wasDropped) => {
        if (wasDropped) options.onNotice('catalyst: reconnected; the same shell goes on.');
        options.onReadiness();
      },
      onDropped: (isFirst) => {
        if (isFirst)
          options.onNotice('catalyst: lost the connection to Catalyst; reconnecting to the same shell…');
        options.onReadiness();
      },
      onNotice: (message) => {
        options.onNotice(`catalyst: ${message}`);
      },
      onEnd: (end) => {
        this.#settle(outcomeOf(end, options.onNotice));
        options.onReadiness();
      },
      giveUpAfterMs: GIVE_UP_AFTER_MS,
      endOnDropAfterInput: options.isInputPiped,
      // The input pump reads no more while the shell is away: what is kept is a chunk or two.
      maxPendingBytes: Number.POSITIVE_INFINITY,
    });
  }

  /** Opens the shell; settles when it ends (its exit code as 0 or 1), or rejects with why it could not go on. */
  run(): Promise<ExitCodeValue> {
    this.#link.start();
    return this.#outcome;
  }

  /** Stops following (the command ends): the socket closes, a shell still open lives on for the server's minute. */
  stop(): void {
    this.#link.dispose();
  }

  resize(): void {
    const { cols, rows } = this.#options.size();
    this.#link.resize(cols, rows);
  }

  readonly input: InputSink = {
    // Nothing more is typed into a shell whose output waits for stdout: its echo would only pile up behind.
    isReady: () => this.#link.isLive && !this.#link.isOutputHeld,
    bufferedBytes: () => this.#link.bufferedAmount,
    send: (chunk, onSent) => {
      this.#link.write(chunk, onSent);
    },
    end: () => {
      this.#link.write(END_OF_INPUT);
    },
  };

  /** stdout has taken what it buffered: the output comes again. */
  outputDrained(): void {
    this.#holdOutput(false);
  }

  #onOutput(bytes: Buffer, isReplay: boolean): void {
    const fresh = isReplay ? this.#seen.unseenPartOf(bytes) : bytes;
    if (fresh.length === 0) return;
    this.#seen.append(fresh);
    if (!this.#options.onOutput(fresh)) this.#holdOutput(true);
  }

  #holdOutput(isHeld: boolean): void {
    if (this.#link.isOutputHeld === isHeld) return;
    this.#link.holdOutput(isHeld);
    this.#options.onReadiness();
  }

  /**
   * A socket for the link. The first one's refusal (no token, Catalyst not there) ends the command with its reason,
   * as any refused token does later; Catalyst unreachable, or a proxy's error page while it restarts, is tried again
   * once the shell is open.
   */
  async #connect(events: LinkSocketEvents): Promise<LinkSocket> {
    let socket: WebSocket;
    try {
      socket = await this.#options.openSocket();
    } catch (error) {
      if (!isCliError(error)) throw error;
      if (isAccessRefused(error) || this.#link.terminalId === undefined) {
        throw new LinkRefused(error.code, error.message, { cause: error });
      }
      throw error;
    }
    let hasSentSincePing = false;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = toBuffer(data);
      if (isBinary) events.onBytes(bytes);
      else events.onText(bytes.toString('utf8'));
    });
    let isAnswered = true;
    socket.on('pong', () => (isAnswered = true));
    socket.on('message', () => (isAnswered = true));
    const pings = setInterval(() => {
      // While the server holds our input back (the shell does not read it yet), it reads nothing of ours, pongs
      // included: input on its way keeps the socket, and only a quiet, unanswered one counts as dead.
      const isSending = hasSentSincePing || socket.bufferedAmount > 0;
      hasSentSincePing = false;
      if (!isAnswered && !isSending) socket.terminate();
      else socket.ping();
      isAnswered = false;
    }, PING_EVERY_MS);
    pings.unref();
    socket.once('close', (code: number) => {
      clearInterval(pings);
      events.onClose(code);
    });
    return {
      get isOpen() {
        return socket.readyState === socket.OPEN;
      },
      sendText: (text) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      },
      sendBytes: (bytes, onSent) => {
        hasSentSincePing = true;
        if (socket.readyState !== socket.OPEN) {
          onSent?.();
          return;
        }
        socket.send(bytes, { binary: true }, () => onSent?.());
      },
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
      close: (code, reason) => {
        socket.close(code, reason);
      },
    };
  }
}

/** The command's outcome of the link's end: the shell's exit code as 0 or 1, or why it could not go on. */
function outcomeOf(end: TerminalLinkEnd, notice: (line: string) => void): ExitCodeValue | CliError {
  switch (end.kind) {
    case 'ended':
      if (end.reason !== 'exited') notice(`catalyst: ${end.message}`);
      return end.reason === 'exited' && end.exitCode === 0 ? ExitCode.completed : ExitCode.failed;
    case 'refused': {
      if (end.cause instanceof CliError) return end.cause;
      const code = ErrorCodeSchema.safeParse(end.code);
      return new CliError(code.success ? code.data : 'UNEXPECTED_RESPONSE', end.message);
    }
    case 'gone':
      return new CliError('TERMINAL_NOT_FOUND', 'The shell ended while the connection to Catalyst was lost.');
    case 'displaced':
      notice('catalyst: this shell was opened elsewhere (a page or another command); it goes on there.');
      return ExitCode.failed;
    case 'lost':
      if (end.isInputInFlight) {
        return new CliError(
          'CONNECTION_LOST',
          'The connection to Catalyst was lost while the piped input was being sent: some of it may not have reached the shell, so the command stops rather than go on with a gap (the shell ends within a minute).',
        );
      }
      return new CliError(
        'CONNECTION_LOST',
        end.isOpened
          ? 'Catalyst could not be reached again within a minute; the shell has ended.'
          : 'The connection to Catalyst was lost before the shell opened.',
      );
    case 'disposed':
      return ExitCode.failed;
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
