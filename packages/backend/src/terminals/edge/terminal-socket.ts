import {
  MAX_TERMINAL_INPUT_BYTES,
  TerminalClientFrameSchema,
  type TerminalClientFrame,
  type TerminalServerFrame,
} from '@catalyst/protocol';
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';
import { isCatalystError } from '../../core/catalyst-error.ts';
import type { TerminalAttachment, TerminalLink, Terminals } from '../terminals.ts';
import { INTERNAL_MESSAGE } from '../../server/http-errors.ts';
import { createHeartbeat } from '../../server/ws-connection.ts';

/**
 * One terminal's WebSocket (`/ws/terminal`, issue 31): JSON text frames for control, binary frames for bytes. The
 * first frame opens a terminal or attaches to one; the socket then carries that terminal only. A dropped socket
 * detaches (the shell goes on for a while); `close` ends it. Nothing typed or printed is logged: only frame types
 * and ids.
 */

/** Another client attached to this terminal (a second tab, the CLI): this one lets go. */
export const DISPLACED_CLOSE_CODE = 4009;
/** The terminal could not be opened or attached to: the error frame before it says why. */
export const TERMINAL_REFUSED_CLOSE_CODE = 4004;

export type TerminalsPort = Pick<Terminals, 'open' | 'attach'>;

export interface TerminalSocketOptions {
  socket: WebSocket;
  terminals: TerminalsPort;
  logger: Logger;
  /** How long the socket's input may wait on a pty that takes none of it before the heartbeat stops sparing it. */
  maxInputWaitMs?: number;
}

/**
 * Ten minutes: a paste into a program busy for minutes (a long statement in `catalyst shell x < big.sql`) goes on,
 * and a client that vanished mid-paste holds its shell for no longer than this, the heartbeat and the detach.
 */
export const DEFAULT_MAX_INPUT_WAIT_MS = 10 * 60_000;

export function startTerminalSocket(options: TerminalSocketOptions): { checkAlive(): void } {
  const { socket, logger } = options;
  let link: TerminalLink | undefined;
  let isLinking = false;
  const sendFrame = (frame: TerminalServerFrame): void => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  const output = createOutputPacer(socket);
  const input = createInputWait(socket, {
    maxInputWaitMs: options.maxInputWaitMs ?? DEFAULT_MAX_INPUT_WAIT_MS,
    // A client's `flow` pause counts no more: its unpause may be queued behind this input, unread.
    onWait: () => {
      output.recheck();
    },
  });
  const attachment: TerminalAttachment = {
    onOutput: (chunk) => {
      output.send(chunk);
    },
    isBehind: () => output.isBehind(),
    caughtUp: () => output.caughtUp(),
    onEnded: (ending) => {
      if (link !== undefined) sendFrame({ type: 'ended', terminalId: link.terminalId, ...ending });
      link = undefined;
      socket.close(1000, 'terminal ended');
    },
    onDisplaced: () => {
      link = undefined;
      socket.close(DISPLACED_CLOSE_CODE, 'attached elsewhere');
    },
  };
  const refuse = (error: unknown): void => {
    sendFrame(toErrorFrame(error, logger));
    socket.close(TERMINAL_REFUSED_CLOSE_CODE, 'terminal refused');
  };
  const linkTo = async (frame: TerminalClientFrame & { type: 'open' | 'attach' }): Promise<void> => {
    const size = { cols: frame.cols, rows: frame.rows };
    const linked =
      frame.type === 'open'
        ? await options.terminals.open(frame.ideaId, size, attachment)
        : options.terminals.attach({ ideaId: frame.ideaId, terminalId: frame.terminalId }, size, attachment);
    if (socket.readyState !== WebSocket.OPEN) {
      linked.detach();
      return;
    }
    link = linked;
    const { terminalId, ideaId, cwd } = linked;
    sendFrame({ type: 'ready', terminalId, ideaId, cwd, isReattached: frame.type === 'attach' });
    // An attach is always answered with its replay, empty or not: the client takes the next bytes as it.
    if (frame.type === 'attach' || linked.replay.length > 0) output.send(linked.replay);
  };
  const onFrame = (frame: TerminalClientFrame): void => {
    if (frame.type === 'flow') {
      output.hold(frame.paused);
      return;
    }
    if (frame.type === 'open' || frame.type === 'attach') {
      if (link !== undefined || isLinking) {
        sendFrame(invalid('This socket has its terminal already.'));
        return;
      }
      isLinking = true;
      linkTo(frame).catch(refuse);
      return;
    }
    if (link === undefined) {
      sendFrame(invalid('Open or attach to a terminal first.'));
      return;
    }
    if (frame.type === 'resize') link.resize({ cols: frame.cols, rows: frame.rows });
    else void link.close();
  };
  socket.on('message', (data: RawData, isBinary: boolean) => {
    // Closing (signed out, displaced, ended): ws still delivers until the client's close arrives (issue 39).
    if (socket.readyState !== WebSocket.OPEN) return;
    const bytes = toBuffer(data);
    if (isBinary) {
      if (bytes.length > MAX_TERMINAL_INPUT_BYTES) {
        sendFrame({
          type: 'error',
          code: 'FRAME_TOO_LARGE',
          message: 'Send at most 64 KiB of input at once.',
        });
        return;
      }
      if (link === undefined) sendFrame(invalid('Open or attach to a terminal first.'));
      else if (!link.write(bytes)) input.wait(link);
      return;
    }
    const parsed = parseFrame(bytes);
    if (parsed === undefined) {
      sendFrame(invalid('Not a terminal frame (docs/protocol.md, the terminal’s WebSocket).'));
      return;
    }
    onFrame(parsed);
  });
  socket.on('error', (error) => {
    logger.warn({ err: error }, 'terminal websocket error');
  });
  socket.on('close', () => {
    output.close();
    link?.detach();
    link = undefined;
  });
  return { checkAlive: createHeartbeat(socket, logger, input.isHeldBack) };
}

/**
 * The pty's side is full (a big paste, `catalyst shell x < big.sql`): the socket is not read until it drains, so the
 * client's sends wait in TCP, not in this process. Its pong then waits unread behind its input, so the heartbeat
 * spares the socket (held back since the last beat, or still), but only while the pty takes some of the input at
 * least every `maxInputWaitMs`. Past that, nothing this side can read tells a live client from one whose network
 * died mid-paste into a program that reads nothing (`sleep`), which would hold its socket, and so its shell, for
 * ever (issue 39): the heartbeat pings it as any other, and cuts it when the pong does not come.
 */
function createInputWait(
  socket: WebSocket,
  options: { maxInputWaitMs: number; onWait: () => void },
): { wait: (link: TerminalLink) => void; isHeldBack: () => boolean } {
  let wasHeldBack = false;
  let waitingSince: number | undefined;
  return {
    wait: (link) => {
      if (socket.isPaused) return;
      wasHeldBack = true;
      waitingSince = performance.now();
      socket.pause();
      options.onWait();
      void link.drained().then(() => {
        waitingSince = undefined;
        socket.resume();
      });
    },
    isHeldBack: () => {
      const held = wasHeldBack || socket.isPaused;
      wasHeldBack = socket.isPaused;
      const isStalled =
        waitingSince !== undefined && performance.now() - waitingSince >= options.maxInputWaitMs;
      return held && !isStalled;
    },
  };
}

/**
 * The terminal's output to its socket, with the socket's buffer as the measure of a slow client: past
 * OUTPUT_HIGH_WATER_BYTES the client is behind (the service stops reading the shell's output), and it has caught up
 * once the buffer is down to OUTPUT_LOW_WATER_BYTES, as told by the send callbacks of what is in flight. A client
 * that said it takes no more for now (its `flow` frame) is behind until it says it takes more, except while its
 * socket is paused for input the pty cannot take: that "more" may wait unread behind the input, and the shell may
 * read its input only once its output can go (the pty's echo, `cat`), so the output flows then.
 */
export const OUTPUT_HIGH_WATER_BYTES = 256 * 1024;
export const OUTPUT_LOW_WATER_BYTES = 64 * 1024;

function createOutputPacer(socket: WebSocket): {
  send(chunk: Uint8Array): void;
  isBehind(): boolean;
  caughtUp(): Promise<void>;
  hold(isHeld: boolean): void;
  recheck(): void;
  close(): void;
} {
  let waiting: (() => void)[] = [];
  let isHeldByClient = false;
  const isHeld = (): boolean => isHeldByClient && !socket.isPaused;
  const settle = (): void => {
    const isOpen = socket.readyState === WebSocket.OPEN;
    const isCaughtUp = !isOpen || (!isHeld() && socket.bufferedAmount <= OUTPUT_LOW_WATER_BYTES);
    if (!isCaughtUp) return;
    const settled = waiting;
    waiting = [];
    for (const resolve of settled) resolve();
  };
  return {
    send: (chunk) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(chunk, { binary: true }, settle);
    },
    isBehind: () =>
      socket.readyState === WebSocket.OPEN && (isHeld() || socket.bufferedAmount > OUTPUT_HIGH_WATER_BYTES),
    caughtUp: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        settle();
      }),
    hold: (isHeldNow) => {
      isHeldByClient = isHeldNow;
      settle();
    },
    recheck: settle,
    close: settle,
  };
}

function parseFrame(bytes: Buffer): TerminalClientFrame | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = TerminalClientFrameSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

function invalid(message: string): TerminalServerFrame {
  return { type: 'error', code: 'INVALID_FRAME', message };
}

function toErrorFrame(error: unknown, logger: Logger): TerminalServerFrame {
  if (isCatalystError(error)) return { type: 'error', code: error.code, message: error.message };
  logger.error({ err: error }, 'terminal failed unexpectedly');
  return { type: 'error', code: 'INTERNAL', message: INTERNAL_MESSAGE };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
