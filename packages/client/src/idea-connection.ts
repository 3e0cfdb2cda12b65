import {
  MAX_CLIENT_FRAME_BYTES,
  ServerFrameSchema,
  type ClientFrame,
  type ErrorFrame,
  type ServerFrame,
  type SubscribedFrame,
} from '@catalyst/protocol';
import { parseJson, parseServerData } from './lenient-parse.ts';

/**
 * A client's one WebSocket to `/ws` (docs/protocol.md), as the web app and the `catalyst` command both keep it. It
 * reconnects by itself with backoff, and on every (re)connect subscribes each followed idea again with the last
 * `seq` that idea's view has, so the server replays exactly what was missed (a view dedupes by `seq`, so an overlap
 * costs nothing). A socket that cannot even open is followed by a login check: a login that lapsed turns into the
 * `unauthorized` state instead of endless retries. The socket itself is the client's (`connect`): the browser's
 * WebSocket or ws in Node.
 */

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'unauthorized';

/** A frame for one idea: its relay events, live text deltas, its `subscribed` and the errors its frames caused. */
export type IdeaFrame = Exclude<ServerFrame, ErrorFrame | SubscribedFrame>;

export interface IdeaSubscriber {
  readonly ideaId: string;
  /** The newest `seq` the view holds: what a (re)subscribe asks to continue from (0: the whole history). */
  lastSeq(): number;
  onFrames(frames: readonly IdeaFrame[]): void;
  /**
   * The answer to the latest (re)subscribe only: one for an earlier subscribe is not passed on. `replay` is what
   * came for the idea between that subscribe and its answer (already passed to `onFrames`): with `reset`, the
   * server's whole history, to keep in place of what the view held.
   */
  onSubscribed(frame: SubscribedFrame, replay: readonly IdeaFrame[]): void;
  onError(frame: ErrorFrame): void;
  /** The socket closed: live-only state (partial text) may have missed frames and should be dropped. */
  onDisconnected(): void;
}

export type SendResult = 'sent' | 'offline' | 'too_large';

/** An open socket, as the connection uses it. */
export interface FrameSocket {
  /** False when the socket is closing: the text was not sent. */
  sendText(text: string): boolean;
  close(code: number, reason: string): void;
}

/** What a socket tells the connection once open; `onClose` also when it could not open. */
export interface FrameSocketEvents {
  onText(text: string): void;
  onClose(): void;
}

export interface IdeaConnectionOptions {
  /** A new socket to `/ws`, resolved once open, rejected when it could not open. */
  connect: (events: FrameSocketEvents) => Promise<FrameSocket>;
  /** Resolves true when the login is still good; asked when a socket fails to open. */
  checkLogin?: () => Promise<boolean>;
  /** Backoff: the first delay, doubled per failure up to `maxDelayMs`, each with ±20 % jitter. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /**
   * A frame that is not JSON (`type` undefined), or not one this client understands (a newer server's, its `type`):
   * said, then ignored. `sample`: its first 200 characters.
   */
  onUnreadable?: (frame: { sample: string; type: string | undefined }) => void;
  /** Whether `retryNow` should leave the backoff as it is (a hidden page: no one waits for it). */
  isAsleep?: () => boolean;
}

/** A subscribe the server refused for a passing reason (host unreachable) is tried again after this, doubling. */
const RESUBSCRIBE_DELAY_MS = 2_000;
const MAX_RESUBSCRIBE_DELAY_MS = 30_000;
/** Frames arrive one per message; views get them in batches (one render per burst, not per frame). */
const BATCH_MS = 16;

export class IdeaConnection {
  #state: ConnectionState = 'connecting';
  #socket: FrameSocket | undefined;
  /** A socket is being opened (a `connect` not settled yet). */
  #isOpening = false;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #requestCounter = 0;
  /**
   * Per idea: the requestId of its latest subscribe, how often a refused one has been retried, and the frames of
   * the idea that came since it was sent, until its answer.
   */
  readonly #latestSubscribe = new Map<
    string,
    { requestId: string; retries: number; timer?: ReturnType<typeof setTimeout>; replay?: IdeaFrame[] }
  >();
  readonly #subscribers = new Map<string, Set<IdeaSubscriber>>();
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();
  readonly #errorListeners = new Set<(frame: ErrorFrame) => void>();
  #pending: ServerFrame[] = [];
  #flushScheduled = false;
  readonly #options: IdeaConnectionOptions &
    Required<Pick<IdeaConnectionOptions, 'initialDelayMs' | 'maxDelayMs'>>;

  constructor(options: IdeaConnectionOptions) {
    this.#options = { initialDelayMs: 500, maxDelayMs: 8_000, ...options };
    this.#open();
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get isOpen(): boolean {
    return this.#socket !== undefined;
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Errors no idea view claims (a frame without an idea). */
  onError(listener: (frame: ErrorFrame) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  subscribe(subscriber: IdeaSubscriber): () => void {
    let set = this.#subscribers.get(subscriber.ideaId);
    if (set === undefined) {
      set = new Set();
      this.#subscribers.set(subscriber.ideaId, set);
    }
    set.add(subscriber);
    this.#sendSubscribe(subscriber);
    return () => {
      const current = this.#subscribers.get(subscriber.ideaId);
      current?.delete(subscriber);
      if (current?.size === 0) {
        this.#subscribers.delete(subscriber.ideaId);
        clearTimeout(this.#latestSubscribe.get(subscriber.ideaId)?.timer);
        this.#latestSubscribe.delete(subscriber.ideaId);
        this.send({ type: 'unsubscribe', ideaId: subscriber.ideaId });
      }
    };
  }

  /** A unique requestId for a frame, so the error it may cause can be told apart. */
  nextRequestId(prefix: string): string {
    this.#requestCounter += 1;
    return `${prefix}-${this.#requestCounter}`;
  }

  /**
   * Not `sent` when the socket is not open or the frame is over the server's limit: the caller says so to the
   * person; nothing is queued behind their back.
   */
  send(frame: ClientFrame): SendResult {
    const socket = this.#socket;
    if (socket === undefined) return 'offline';
    const text = JSON.stringify(frame);
    if (new TextEncoder().encode(text).length > MAX_CLIENT_FRAME_BYTES) return 'too_large';
    return socket.sendText(text) ? 'sent' : 'offline';
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const entry of this.#latestSubscribe.values()) clearTimeout(entry.timer);
    this.#socket?.close(1000, 'closed');
  }

  /** Back online, or awake again: try at once instead of waiting out the backoff. */
  retryNow(): void {
    if (this.#closed || this.#socket !== undefined || this.#isOpening || this.#state === 'unauthorized')
      return;
    if (this.#options.isAsleep?.() === true) return;
    clearTimeout(this.#timer);
    this.#open();
  }

  /** Ends the current socket to start a fresh one (one that may look open but is dead); `sinceSeq` makes it cheap. */
  renew(reason: string): void {
    this.#socket?.close(4000, reason);
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #open(): void {
    if (this.#closed || this.#socket !== undefined || this.#isOpening) return;
    this.#isOpening = true;
    let socket: FrameSocket | undefined;
    const events: FrameSocketEvents = {
      onText: (text) => {
        if (socket !== undefined && this.#socket === socket) this.#receive(text);
      },
      onClose: () => {
        if (socket === undefined || this.#socket !== socket) return;
        this.#socket = undefined;
        this.#dropped(true);
      },
    };
    this.#options.connect(events).then(
      (opened) => {
        this.#isOpening = false;
        if (this.#closed) {
          opened.close(1000, 'closed');
          return;
        }
        socket = opened;
        this.#socket = opened;
        this.#attempt = 0;
        this.#setState('open');
        for (const set of this.#subscribers.values()) {
          for (const subscriber of set) this.#sendSubscribe(subscriber);
        }
      },
      () => {
        this.#isOpening = false;
        this.#dropped(false);
      },
    );
  }

  #dropped(wasOpen: boolean): void {
    this.#flush();
    for (const set of this.#subscribers.values()) for (const subscriber of set) subscriber.onDisconnected();
    if (this.#closed) return;
    this.#setState('reconnecting');
    if (wasOpen) {
      this.#schedule();
      return;
    }
    // Never opened: the upgrade may have been refused for the login, which a WebSocket cannot tell.
    const checkLogin = this.#options.checkLogin ?? (() => Promise.resolve(true));
    checkLogin().then(
      (ok) => {
        if (this.#closed || this.#socket !== undefined || this.#isOpening) return;
        if (ok) this.#schedule();
        else this.#setState('unauthorized');
      },
      () => {
        if (this.#closed || this.#socket !== undefined || this.#isOpening) return;
        this.#schedule();
      },
    );
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    const base = Math.min(this.#options.maxDelayMs, this.#options.initialDelayMs * 2 ** this.#attempt);
    this.#attempt += 1;
    const delay = base * (0.8 + Math.random() * 0.4);
    this.#timer = setTimeout(() => {
      this.#open();
    }, delay);
  }

  #sendSubscribe(subscriber: IdeaSubscriber): void {
    const sinceSeq = subscriber.lastSeq();
    const requestId = this.nextRequestId('sub');
    const previous = this.#latestSubscribe.get(subscriber.ideaId);
    clearTimeout(previous?.timer);
    this.#latestSubscribe.set(subscriber.ideaId, { requestId, retries: previous?.retries ?? 0, replay: [] });
    this.send({
      type: 'subscribe',
      ideaId: subscriber.ideaId,
      ...(sinceSeq > 0 ? { sinceSeq } : {}),
      requestId,
    });
  }

  /** A refused subscribe (not a missing idea) is tried again with backoff, so the view comes alive by itself. */
  #retrySubscribe(ideaId: string): void {
    if (this.#closed) return;
    const entry = this.#latestSubscribe.get(ideaId);
    const subscriber = this.#subscribers.get(ideaId)?.values().next().value;
    if (entry === undefined || subscriber === undefined) return;
    const delay = Math.min(MAX_RESUBSCRIBE_DELAY_MS, RESUBSCRIBE_DELAY_MS * 2 ** entry.retries);
    entry.retries += 1;
    entry.timer = setTimeout(() => {
      if (this.#subscribers.get(ideaId)?.has(subscriber) === true) this.#sendSubscribe(subscriber);
    }, delay);
  }

  #receive(text: string): void {
    const json = parseJson(text);
    if (json === undefined) {
      this.#options.onUnreadable?.({ sample: text.slice(0, 200), type: undefined });
      return;
    }
    const parsed = parseServerData(ServerFrameSchema, json);
    if (!parsed.success) {
      const type =
        typeof json === 'object' && json !== null && 'type' in json ? String(json.type) : 'no type';
      this.#options.onUnreadable?.({ sample: text.slice(0, 200), type });
      return;
    }
    this.#pending.push(parsed.data);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // A burst (a replay of hundreds of events, or fast deltas) becomes one batch.
    setTimeout(() => {
      this.#flush();
    }, BATCH_MS);
  }

  #flush(): void {
    this.#flushScheduled = false;
    const frames = this.#pending;
    if (frames.length === 0) return;
    this.#pending = [];
    const batches = new Map<string, IdeaFrame[]>();
    for (const frame of frames) {
      if (frame.type === 'error') {
        this.#deliver(batches);
        batches.clear();
        const latest = frame.ideaId === undefined ? undefined : this.#latestSubscribe.get(frame.ideaId);
        if (
          frame.ideaId !== undefined &&
          latest?.requestId === frame.requestId &&
          frame.code !== 'IDEA_NOT_FOUND'
        ) {
          this.#retrySubscribe(frame.ideaId);
        }
        const targets = frame.ideaId === undefined ? undefined : this.#subscribers.get(frame.ideaId);
        if (targets === undefined || targets.size === 0) {
          for (const listener of this.#errorListeners) listener(frame);
        } else {
          for (const subscriber of targets) subscriber.onError(frame);
        }
        continue;
      }
      if (frame.type === 'subscribed') {
        this.#deliver(batches);
        batches.clear();
        const latest = this.#latestSubscribe.get(frame.ideaId);
        if (latest === undefined || latest.requestId !== frame.requestId) continue;
        latest.retries = 0;
        const replay = latest.replay ?? [];
        delete latest.replay;
        for (const subscriber of this.#subscribers.get(frame.ideaId) ?? [])
          subscriber.onSubscribed(frame, replay);
        continue;
      }
      // Kept until the answer: after a `reset` the view keeps the replay instead of asking for it again.
      this.#latestSubscribe.get(frame.ideaId)?.replay?.push(frame);
      let batch = batches.get(frame.ideaId);
      if (batch === undefined) {
        batch = [];
        batches.set(frame.ideaId, batch);
      }
      batch.push(frame);
    }
    this.#deliver(batches);
  }

  #deliver(batches: Map<string, IdeaFrame[]>): void {
    for (const [ideaId, batch] of batches) {
      for (const subscriber of this.#subscribers.get(ideaId) ?? []) subscriber.onFrames(batch);
    }
  }
}
