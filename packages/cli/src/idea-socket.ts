import type { ClientFrame, IdeaId, ServerFrame, SubscribedFrame } from '@catalyst/protocol';
import {
  IdeaConnection,
  type FrameSocket,
  type FrameSocketEvents,
  type IdeaSubscriber,
} from '@catalyst/client/idea-connection';
import type { RawData, WebSocket } from 'ws';
import { CliError } from './cli-error.ts';
import { isAccessRefused, openTokenSocket } from './token-socket.ts';

/**
 * Catalyst's WebSocket (`/ws`, docs/protocol.md) as the web app keeps it: the client package's idea connection,
 * over ws with the token. It subscribes to an idea and passes on its events and live text, each event once (by its
 * `seq`); a connection that drops is opened again and the idea followed from the last event seen, so a restart of
 * Catalyst while a run is followed loses nothing. Every frame is parsed; one that does not parse is reported to
 * `onUnreadable`, never dropped silently and never a crash.
 */
export interface IdeaSocket {
  /** A frame to Catalyst; one sent while the connection is away goes once it is back. */
  send: (frame: ClientFrame) => void;
  /** Replays the idea's history (ignored by the listeners that follow one run) and resolves once it is live. */
  /** `sinceSeq`: only the events after it are replayed (the idea's `lastSeq`: none, only what comes next). */
  subscribe(ideaId: IdeaId, sinceSeq?: number): Promise<SubscribedFrame>;
  listen(listener: (frame: ServerFrame) => void): void;
  onUnreadable(listener: (sample: string) => void): void;
  /**
   * Settles when the connection ends for good: closed here, the token refused, or Catalyst not reachable again
   * within RECONNECT_LIMIT_MS.
   */
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** The server pings every 30 s; three missed pings mean the path to it is dead though TCP has not noticed. */
const SILENCE_LIMIT_MS = 100_000;
/** How long a command waits for Catalyst to be back (a restart takes seconds) before it says the connection is lost. */
export const RECONNECT_LIMIT_MS = 60_000;
/** Frames a person sent while the connection was away (an answer typed at a prompt), sent once it is back. */
const MAX_HELD_FRAMES = 20;

/** Opens the connection; rejects with why when its first socket cannot open (no Catalyst there, a refused token). */
export async function openIdeaSocket(url: string, token: string): Promise<IdeaSocket> {
  const listeners: ((frame: ServerFrame) => void)[] = [];
  const unreadable: ((sample: string) => void)[] = [];
  const deliver = (frame: ServerFrame) => {
    for (const listener of [...listeners]) listener(frame);
  };
  let settleClosed: (why: { code: number; reason: string }) => void = () => undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (settleClosed = resolve));
  let isFirst = true;
  let firstOpened: () => void = () => undefined;
  let firstFailed: (error: Error) => void = () => undefined;
  const firstOpen = new Promise<void>((resolve, reject) => {
    firstOpened = resolve;
    firstFailed = reject;
  });
  const connection = new IdeaConnection({
    connect: async (events) => {
      try {
        const socket = wrap(await openTokenSocket(url, '/ws', token), events);
        if (isFirst) firstOpened();
        return socket;
      } catch (error) {
        if (isFirst) firstFailed(error instanceof Error ? error : new Error(String(error)));
        else if (isAccessRefused(error)) {
          end(4401, error.message);
        }
        throw error;
      } finally {
        isFirst = false;
      }
    },
    onUnreadable: ({ sample }) => {
      for (const listener of unreadable) listener(sample);
    },
  });
  const end = (code: number, reason: string) => {
    connection.close();
    settleClosed({ code, reason });
  };
  connection.onError(deliver);
  const held: ClientFrame[] = [];
  let away: ReturnType<typeof setTimeout> | undefined;
  connection.onState((state) => {
    clearTimeout(away);
    if (state === 'reconnecting') {
      away = setTimeout(() => {
        end(1006, 'Catalyst could not be reached again');
      }, RECONNECT_LIMIT_MS);
      away.unref();
    } else if (state === 'open') {
      for (const frame of held.splice(0)) connection.send(frame);
    }
  });
  try {
    await firstOpen;
  } catch (error) {
    end(1006, 'could not open');
    throw error;
  }
  return {
    send: (frame) => {
      const sent = connection.send(frame);
      if (sent === 'offline' && held.length < MAX_HELD_FRAMES) held.push(frame);
      if (sent === 'too_large') {
        // As the server says of a frame over its limit: the person learns the answer did not go.
        const ideaId = 'ideaId' in frame && typeof frame.ideaId === 'string' ? { ideaId: frame.ideaId } : {};
        deliver({
          type: 'error',
          code: 'FRAME_TOO_LARGE',
          message: 'This is too long to send to Catalyst.',
          ...ideaId,
        });
      }
    },
    subscribe: (ideaId, sinceSeq) =>
      new Promise((resolve, reject) => {
        let lastSeq = sinceSeq ?? 0;
        let isLive = false;
        const subscriber: IdeaSubscriber = {
          ideaId,
          lastSeq: () => lastSeq,
          onFrames: (frames) => {
            for (const frame of frames) {
              // A replay after a reconnect may overlap what was passed on: each event once.
              if ('seq' in frame) {
                if (frame.seq <= lastSeq) continue;
                lastSeq = frame.seq;
              }
              deliver(frame);
            }
          },
          onSubscribed: (frame, replay) => {
            if (frame.reset === true) {
              // The server's history is not the one followed so far (it was replaced): its replay is the history
              // now, passed on whole, and followed from its end.
              lastSeq = 0;
              for (const event of replay) if ('seq' in event && event.seq > lastSeq) lastSeq = event.seq;
              for (const event of replay) if ('seq' in event) deliver(event);
            }
            deliver(frame);
            if (!isLive) resolve(frame);
            isLive = true;
          },
          onError: (frame) => {
            if (isLive) {
              deliver(frame);
              return;
            }
            // The first subscribe refused: the command says why rather than wait for a retry.
            unsubscribe();
            reject(new CliError(frame.code, frame.message));
          },
          onDisconnected: () => undefined,
        };
        const unsubscribe = connection.subscribe(subscriber);
        void closed.then(() => {
          if (!isLive) {
            reject(
              new CliError(
                'CONNECTION_LOST',
                'The connection to Catalyst closed before the idea could be followed.',
              ),
            );
          }
        });
      }),
    listen: (listener) => listeners.push(listener),
    onUnreadable: (listener) => unreadable.push(listener),
    closed,
    close: () => {
      end(1000, 'closed');
    },
  };
}

function wrap(socket: WebSocket, events: FrameSocketEvents): FrameSocket {
  socket.on('message', (data: RawData) => {
    events.onText(toText(data));
  });
  // After the open, errors arrive as a close; without a listener ws would throw them.
  socket.on('error', () => undefined);
  socket.once('close', () => {
    events.onClose();
  });
  watchForSilence(socket);
  return {
    sendText: (text) => {
      if (socket.readyState !== socket.OPEN) return false;
      socket.send(text);
      return true;
    },
    close: (code, reason) => {
      socket.close(code, reason);
    },
  };
}

function watchForSilence(socket: WebSocket): void {
  let lastHeard = Date.now();
  const heard = (): void => {
    lastHeard = Date.now();
  };
  socket.on('ping', heard);
  socket.on('message', heard);
  const timer = setInterval(() => {
    if (Date.now() - lastHeard > SILENCE_LIMIT_MS) socket.terminate();
  }, SILENCE_LIMIT_MS / 4);
  timer.unref();
  socket.once('close', () => {
    clearInterval(timer);
  });
}

function toText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
