import {
  ServerFrameSchema,
  type ClientFrame,
  type IdeaId,
  type ServerFrame,
  type SubscribedFrame,
} from '@catalyst/protocol';
import type { WebSocket } from 'ws';
import { type RawData } from 'ws';
import { CliError } from './cli-error.ts';
import { openTokenSocket } from './token-socket.ts';

/**
 * Catalyst's WebSocket (`/ws`, docs/protocol.md), as the web app uses it: subscribe to an idea, receive its
 * events and live text, send answers. Every frame is parsed with ServerFrameSchema; one that does not parse is
 * reported to `onUnreadable`, never dropped silently and never a crash.
 */
export interface IdeaSocket {
  send: (frame: ClientFrame) => void;
  /** Replays the idea's history (ignored by the listeners that follow one run) and resolves once it is live. */
  /** `sinceSeq`: only the events after it are replayed (the idea's `lastSeq`: none, only what comes next). */
  subscribe(ideaId: IdeaId, sinceSeq?: number): Promise<SubscribedFrame>;
  listen(listener: (frame: ServerFrame) => void): void;
  onUnreadable(listener: (sample: string) => void): void;
  /** Settles when the connection ends, by either side. */
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** The server pings every 30 s; three missed pings mean the path to it is dead though TCP has not noticed. */
const SILENCE_LIMIT_MS = 100_000;

export async function openIdeaSocket(url: string, token: string): Promise<IdeaSocket> {
  return wrapSocket(await openTokenSocket(url, '/ws', token));
}

function wrapSocket(socket: WebSocket): IdeaSocket {
  const listeners: ((frame: ServerFrame) => void)[] = [];
  const unreadable: ((sample: string) => void)[] = [];
  socket.on('message', (data: RawData) => {
    const text = toText(data);
    const frame = parseFrame(text);
    if (frame === undefined) for (const listener of unreadable) listener(text.slice(0, 200));
    else for (const listener of [...listeners]) listener(frame);
  });
  // After the open, errors arrive as a close; without a listener ws would throw them.
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code: number, reason: Buffer) => {
      resolve({ code, reason: reason.toString('utf8') });
    });
  });
  watchForSilence(socket);
  let requests = 0;
  return {
    send: (frame) => {
      socket.send(JSON.stringify(frame));
    },
    subscribe: (ideaId, sinceSeq) => {
      requests += 1;
      const requestId = `subscribe-${String(requests)}`;
      const subscribed = awaitSubscribed({ listeners, closed, requestId });
      const frame: ClientFrame = {
        type: 'subscribe',
        ideaId,
        requestId,
        ...(sinceSeq === undefined ? {} : { sinceSeq }),
      };
      socket.send(JSON.stringify(frame));
      return subscribed;
    },
    listen: (listener) => listeners.push(listener),
    onUnreadable: (listener) => unreadable.push(listener),
    closed,
    close: () => {
      socket.close(1000);
    },
  };
}

function awaitSubscribed(context: {
  listeners: ((frame: ServerFrame) => void)[];
  closed: Promise<{ code: number; reason: string }>;
  requestId: string;
}): Promise<SubscribedFrame> {
  const { listeners, closed, requestId } = context;
  return new Promise((resolve, reject) => {
    const listener = (frame: ServerFrame): void => {
      if (!('requestId' in frame) || frame.requestId !== requestId) return;
      listeners.splice(listeners.indexOf(listener), 1);
      if (frame.type === 'subscribed') resolve(frame);
      else if (frame.type === 'error') reject(new CliError(frame.code, frame.message));
    };
    listeners.push(listener);
    void closed.then(() => {
      reject(
        new CliError(
          'CONNECTION_LOST',
          'The connection to Catalyst closed before the idea could be followed.',
        ),
      );
    });
  });
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

/** A refused upgrade is a plain-text HTTP answer: 401 without the token, 403 for a foreign origin. */
function parseFrame(text: string): ServerFrame | undefined {
  const parsed = ServerFrameSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
