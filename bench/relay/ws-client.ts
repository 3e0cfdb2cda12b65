/**
 * A browser-like WebSocket client for the bench: every frame parsed with ServerFrameSchema (the edge tests'
 * client does that, and it is the one place `ws` resolves from here) and handed on with its arrival time, taken
 * once the frame is parsed, as a browser would have it in hand.
 */
import type { ClientFrame, ServerFrame } from '../../packages/protocol/src/index.ts';
import { openClient, type TestClient } from '../../packages/backend/test/server-ws-client.ts';
import { nowMs } from './lines.ts';

export type FrameListener = (frame: ServerFrame, arrivedAt: number) => void;

export interface RelayClient {
  send(frame: ClientFrame): void;
  /** The first frame from now on that matches; rejects after timeoutMs, or when the connection ends first. */
  waitFor(predicate: (frame: ServerFrame) => boolean, what: string, timeoutMs: number): Promise<ServerFrame>;
  subscribe(ideaId: string): Promise<void>;
  /** Why the frames stopped: a close code and reason, or a frame outside the contract; undefined while open. */
  readonly failure: string | undefined;
  close(): void;
}

interface Waiter {
  predicate: (frame: ServerFrame) => boolean;
  resolve: (frame: ServerFrame) => void;
  reject: (error: Error) => void;
}

const SUBSCRIBE_TIMEOUT_MS = 15_000;

export async function openRelayClient(
  url: string,
  token: string,
  onFrame: FrameListener,
): Promise<RelayClient> {
  const client = await openClient(`${url.replace(/^http/, 'ws')}/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const waiters = new Set<Waiter>();
  let failure: string | undefined;
  const fail = (reason: string) => {
    failure ??= reason;
    for (const waiter of waiters) waiter.reject(new Error(`the WebSocket stopped: ${reason}`));
    waiters.clear();
  };
  void client.closed.then(({ code, reason }) => {
    fail(`closed with ${String(code)} ${reason}`);
  });
  void pump(client, (frame, arrivedAt) => {
    onFrame(frame, arrivedAt);
    for (const waiter of waiters) {
      if (!waiter.predicate(frame)) continue;
      waiters.delete(waiter);
      waiter.resolve(frame);
    }
  }).catch((error: unknown) => {
    fail(error instanceof Error ? error.message : String(error));
  });
  const waitFor = (predicate: Waiter['predicate'], what: string, timeoutMs: number) =>
    awaitFrame({ waiters, predicate, what, timeoutMs, failure });
  return {
    send: (frame) => {
      client.send(frame);
    },
    waitFor,
    async subscribe(ideaId) {
      const subscribed = waitFor(
        (frame) => frame.type === 'subscribed' && frame.ideaId === ideaId,
        `subscribed to ${ideaId}`,
        SUBSCRIBE_TIMEOUT_MS,
      );
      client.send({ type: 'subscribe', ideaId });
      await subscribed;
    },
    get failure() {
      return failure;
    },
    close: () => {
      client.socket.close();
    },
  };
}

/**
 * The test client resolves next() from inside its own 'message' listener; ours runs right after it for the same
 * message, so each arrival time is queued before the frame it belongs to is taken.
 */
async function pump(client: TestClient, onFrame: FrameListener): Promise<void> {
  const arrivals: number[] = [];
  let taken = 0;
  client.socket.on('message', () => arrivals.push(nowMs()));
  for (;;) {
    const frame = await client.next();
    onFrame(frame, arrivals[taken] ?? Number.NaN);
    taken++;
    // Drop what was taken now and then, so the queue stays short without a shift() per frame.
    if (taken === 1024) {
      arrivals.splice(0, taken);
      taken = 0;
    }
  }
}

function awaitFrame(options: {
  waiters: Set<Waiter>;
  predicate: Waiter['predicate'];
  what: string;
  timeoutMs: number;
  failure: string | undefined;
}): Promise<ServerFrame> {
  const { waiters, what, timeoutMs } = options;
  if (options.failure !== undefined) return Promise.reject(new Error(`${what}: ${options.failure}`));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters.delete(waiter);
      reject(new Error(`no frame for ${what} within ${String(timeoutMs)} ms`));
    }, timeoutMs);
    const waiter: Waiter = {
      predicate: options.predicate,
      resolve: (frame) => {
        clearTimeout(timer);
        resolve(frame);
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    };
    waiters.add(waiter);
  });
}
