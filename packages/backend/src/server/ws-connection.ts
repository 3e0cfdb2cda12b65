import { statusForCode, type ClientFrame, type ErrorFrame, type ServerFrame } from '@catalyst/protocol';
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';
import { isCatalystError } from '../core/catalyst-error.ts';
import type { AutopilotsPort, RunsPort, WsServices } from '../service/ports.ts';
import { INTERNAL_MESSAGE } from './http-errors.ts';
import { parseClientFrame } from './ws-frame-parse.ts';
import { createSubscriptionSet, type SubscriptionSet } from './ws-subscriptions.ts';

/**
 * One browser connection: its frames in, its subscriptions' events out. Every failure answers with an error
 * frame and the connection stays open; only a client that falls behind (its unsent bytes pass a bound) is
 * closed, with 4008, so one stalled tab neither grows the server's memory without bound nor slows the others.
 */

export const SLOW_CLIENT_CLOSE_CODE = 4008;
export const SLOW_CLIENT_CLOSE_REASON = 'too slow: fell behind';

export interface WsConnectionOptions {
  socket: WebSocket;
  services: WsServices;
  logger: Logger;
  maxBufferedBytes: number;
  /** What the tab says it shows (its `viewing` frame), until it closes: a device that sees an idea gets no push. */
  onViewing?: (ideaId: string | null) => void;
}

export interface WsConnection {
  /** For the hub's heartbeat: terminates a client that did not answer the previous ping, else pings again. */
  checkAlive(): void;
}

export function startWsConnection(options: WsConnectionOptions): WsConnection {
  const { socket, services, logger } = options;
  const send = createSender({
    ...options,
    onFellBehind: () => {
      subscriptions.releaseAll();
    },
  });
  const sendPaced = createPacedSender(socket);
  const subscriptions = createSubscriptionSet({ ideas: services.ideas, logger, send, sendPaced });

  socket.on('message', (data: RawData, isBinary: boolean) => {
    // Closing (signed out, fallen behind, shutting down): ws still delivers until the client's close arrives.
    if (socket.readyState !== WebSocket.OPEN) return;
    const parsed = parseClientFrame(toBuffer(data), isBinary);
    if (!parsed.ok) {
      send(parsed.error);
      return;
    }
    if (parsed.frame.type === 'viewing') {
      options.onViewing?.(parsed.frame.ideaId);
      return;
    }
    handleFrame(parsed.frame, { runs: services.runs, autopilots: services.autopilots, subscriptions }).catch(
      (error: unknown) => {
        send(toErrorFrame(error, parsed.frame, logger));
      },
    );
  });
  socket.on('error', (error) => {
    logger.warn({ err: error }, 'websocket error');
  });
  socket.on('close', () => {
    subscriptions.releaseAll();
  });

  return { checkAlive: createHeartbeat(socket, logger) };
}

/** A client that has not answered the previous ping by the next one is gone (sleeping laptop, cut network). */
export function createHeartbeat(
  socket: WebSocket,
  logger: Logger,
  /** The client is sending what this side holds back unread (its pongs wait behind it): alive, not gone. */
  isHeldBack: () => boolean = () => false,
): () => void {
  let isAlive = true;
  const markAlive = (): void => {
    isAlive = true;
  };
  socket.on('pong', markAlive);
  // A frame read is as good as a pong: a long paste's pong waits behind it, and it is read as it comes.
  socket.on('message', markAlive);
  return () => {
    if (isHeldBack()) {
      isAlive = true;
      return;
    }
    if (!isAlive) {
      logger.info('websocket client missed a heartbeat; terminating it');
      socket.terminate();
      return;
    }
    isAlive = false;
    if (socket.readyState === WebSocket.OPEN) socket.ping();
  };
}

/** Above this, a replay waits for the socket to take its frames before sending more. */
const REPLAY_HIGH_WATER_BYTES = 1024 * 1024;

/**
 * For replays: sends at once while the socket has room, and otherwise resolves only once ws has handed this frame
 * to the socket, so a long history flows at the client's pace instead of tripping the slow-client bound.
 */
function createPacedSender(socket: WebSocket): (frame: ServerFrame) => Promise<void> {
  return (frame) =>
    new Promise<void>((resolve) => {
      if (socket.readyState !== WebSocket.OPEN) {
        resolve();
        return;
      }
      const isFull = socket.bufferedAmount > REPLAY_HIGH_WATER_BYTES;
      socket.send(JSON.stringify(frame), () => {
        if (isFull) resolve();
      });
      if (!isFull) resolve();
    });
}

/**
 * Counts the live frames' bytes not yet handed to the kernel (ws calls a send's callback once its bytes are
 * written). Replayed frames are not counted: they flow at the client's pace (createPacedSender), and counting
 * them (`bufferedAmount` did) let one large replayed event close a client on every reconnect (issue 16, item 9).
 * Past the bound, nothing more is sent and the client is closed; dropping its subscriptions waits a microtask, so
 * it never happens inside the service's fan-out loop that called us. ws destroys the socket if the close
 * handshake does not finish within 30 s.
 */
function createSender(
  options: WsConnectionOptions & { onFellBehind: () => void },
): (frame: ServerFrame) => void {
  const { socket, logger, maxBufferedBytes, onFellBehind } = options;
  let hasFallenBehind = false;
  let unsentLiveBytes = 0;
  return (frame) => {
    if (hasFallenBehind || socket.readyState !== WebSocket.OPEN) return;
    const text = JSON.stringify(frame);
    const bytes = Buffer.byteLength(text, 'utf8');
    unsentLiveBytes += bytes;
    socket.send(text, () => {
      unsentLiveBytes -= bytes;
    });
    if (unsentLiveBytes <= maxBufferedBytes) return;
    hasFallenBehind = true;
    logger.warn({ unsentLiveBytes }, 'websocket client fell behind; closing it');
    socket.close(SLOW_CLIENT_CLOSE_CODE, SLOW_CLIENT_CLOSE_REASON);
    queueMicrotask(onFellBehind);
  };
}

/**
 * Success is silent: the run's own events (run:started, run:ended) reach every subscriber of the idea, and so do a
 * queue's (`autopilot:started`, `autopilot:queue_changed`) for a message queued because the idea was busy.
 */
async function handleFrame(
  frame: Exclude<ClientFrame, { type: 'viewing' }>,
  context: { runs: RunsPort; autopilots: AutopilotsPort; subscriptions: SubscriptionSet },
): Promise<void> {
  switch (frame.type) {
    case 'subscribe':
      await context.subscriptions.subscribe(frame);
      return;
    case 'unsubscribe':
      context.subscriptions.release(frame.ideaId);
      return;
    case 'chat':
    case 'build':
      await context.runs.sendMessage(frame.ideaId, frame.type, frame.message);
      return;
    case 'cancel':
      await context.runs.cancelRun(frame.ideaId);
      return;
    case 'mode':
      await context.runs.showMode(frame.ideaId, frame.mode);
      return;
    case 'answer':
      await context.runs.answerQuestion(frame.ideaId, frame.questionId, frame.answers);
      return;
    case 'dismiss':
      await context.runs.dismissQuestion(frame.ideaId, frame.questionId);
      return;
    case 'permission':
      await context.runs.answerPermission(frame.ideaId, frame.requestId, {
        decision: frame.decision,
        message: frame.message,
        remember: frame.remember,
      });
      return;
  }
}

/** A CatalystError's code and sentence go to the client; anything else is a bug: logged, answered generically. */
function toErrorFrame(error: unknown, frame: ClientFrame, logger: Logger): ErrorFrame {
  const context = {
    ...(frame.ideaId === null ? {} : { ideaId: frame.ideaId }),
    ...(frame.requestId === undefined ? {} : { requestId: frame.requestId }),
  };
  if (isCatalystError(error)) {
    if (statusForCode(error.code) >= 500) logger.warn({ err: error, frame: frame.type }, 'frame failed');
    return { type: 'error', code: error.code, message: error.message, ...context };
  }
  logger.error({ err: error, frame: frame.type }, 'frame failed unexpectedly');
  return { type: 'error', code: 'INTERNAL', message: INTERNAL_MESSAGE, ...context };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
