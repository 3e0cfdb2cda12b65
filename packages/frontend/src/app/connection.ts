import {
  MAX_CLIENT_FRAME_BYTES,
  ServerFrameSchema,
  type ClientFrame,
  type ErrorFrame,
  type ServerFrame,
  type SubscribedFrame,
} from '@catalyst/protocol';
import { parseServerData } from '@catalyst/client/lenient-parse';

/**
 * The page's one WebSocket. It reconnects by itself with backoff, and on every (re)connect subscribes each open
 * idea again with the last `seq` that idea's view has, so the server replays exactly what was missed; the
 * transcript dedupes by `seq`, so an overlap costs nothing. A socket that cannot even open is followed by a
 * login check: a missing or expired cookie turns into the `unauthorized` state instead of endless retries.
 */

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'unauthorized';

/** A frame for one idea: its relay events, live text deltas, its `subscribed` and the errors its frames caused. */
export type IdeaFrame = Exclude<ServerFrame, ErrorFrame | SubscribedFrame>;

export interface IdeaSubscriber {
  readonly ideaId: string;
  /** The newest `seq` the view holds: what a (re)subscribe asks to continue from. */
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

/** A subscribe the server refused for a passing reason (host unreachable) is tried again after this, doubling. */
const RESUBSCRIBE_DELAY_MS = 2_000;
const MAX_RESUBSCRIBE_DELAY_MS = 30_000;
/** A page hidden longer than this may hold a socket the server or the network has long dropped. */
const STALE_AFTER_HIDDEN_MS = 30_000;

export interface ConnectionOptions {
  url?: string;
  /** The subprotocols each socket offers (the page's session key rides there: a WebSocket takes no headers). */
  protocols?: () => string[];
  /** Resolves true when the login is still good; called when a socket fails to open. */
  checkLogin?: () => Promise<boolean>;
  /** Backoff: the first delay, doubled per failure up to `maxDelayMs`, each with ±20 % jitter. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export class Connection {
  #state: ConnectionState = 'connecting';
  #socket: WebSocket | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #hiddenSince: number | undefined;
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
  /** Frames arrive one per message; views get them in batches (one render per burst, not per frame). */
  #pending: ServerFrame[] = [];
  #flushScheduled = false;
  readonly #options: Required<ConnectionOptions>;

  constructor(options: ConnectionOptions = {}) {
    const defaultUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    this.#options = {
      url: options.url ?? defaultUrl,
      protocols: options.protocols ?? (() => []),
      checkLogin: options.checkLogin ?? (() => Promise.resolve(true)),
      initialDelayMs: options.initialDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 8_000,
    };
    this.#open();
    addEventListener('online', this.#retryNow);
    document.addEventListener('visibilitychange', this.#onVisibility);
  }

  get state(): ConnectionState {
    return this.#state;
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
    if (socket?.readyState !== WebSocket.OPEN) return 'offline';
    const text = JSON.stringify(frame);
    if (new TextEncoder().encode(text).length > MAX_CLIENT_FRAME_BYTES) return 'too_large';
    socket.send(text);
    return 'sent';
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    removeEventListener('online', this.#retryNow);
    document.removeEventListener('visibilitychange', this.#onVisibility);
    for (const entry of this.#latestSubscribe.values()) clearTimeout(entry.timer);
    this.#socket?.close(1000);
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #open(): void {
    if (this.#closed || this.#socket !== undefined) return;
    let opened = false;
    const socket = new WebSocket(this.#options.url, this.#options.protocols());
    this.#socket = socket;
    socket.addEventListener('open', () => {
      opened = true;
      this.#attempt = 0;
      this.#setState('open');
      for (const set of this.#subscribers.values()) {
        for (const subscriber of set) this.#sendSubscribe(subscriber);
      }
    });
    socket.addEventListener('message', (event: MessageEvent<unknown>) => {
      this.#receive(event.data);
    });
    socket.addEventListener('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#flush();
      for (const set of this.#subscribers.values()) for (const subscriber of set) subscriber.onDisconnected();
      if (this.#closed) return;
      this.#setState('reconnecting');
      if (opened) {
        this.#schedule();
        return;
      }
      // Never opened: the upgrade may have been refused for the login, which a WebSocket cannot tell us.
      this.#options.checkLogin().then(
        (ok) => {
          if (this.#closed || this.#socket !== undefined) return;
          if (ok) this.#schedule();
          else this.#setState('unauthorized');
        },
        () => {
          if (this.#closed || this.#socket !== undefined) return;
          this.#schedule();
        },
      );
    });
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

  /**
   * Hidden → visible: a page that slept may hold a socket that looks open but is dead (the laptop slept, the
   * network changed), so after a long absence it starts a fresh one; `sinceSeq` makes that cheap.
   */
  readonly #onVisibility = (): void => {
    if (document.visibilityState === 'hidden') {
      this.#hiddenSince = Date.now();
      return;
    }
    const hiddenFor = this.#hiddenSince === undefined ? 0 : Date.now() - this.#hiddenSince;
    this.#hiddenSince = undefined;
    if (hiddenFor > STALE_AFTER_HIDDEN_MS && this.#socket?.readyState === WebSocket.OPEN) {
      this.#socket.close(4000, 'page was hidden');
      return;
    }
    this.#retryNow();
  };

  /** Back online, or the tab is visible again: try at once instead of waiting out the backoff. */
  readonly #retryNow = (): void => {
    if (this.#closed || this.#socket !== undefined || this.#state === 'unauthorized') return;
    if (document.visibilityState === 'hidden') return;
    clearTimeout(this.#timer);
    this.#open();
  };

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
    const entry = this.#latestSubscribe.get(ideaId);
    const subscriber = this.#subscribers.get(ideaId)?.values().next().value;
    if (entry === undefined || subscriber === undefined) return;
    const delay = Math.min(MAX_RESUBSCRIBE_DELAY_MS, RESUBSCRIBE_DELAY_MS * 2 ** entry.retries);
    entry.retries += 1;
    entry.timer = setTimeout(() => {
      if (this.#subscribers.get(ideaId)?.has(subscriber) === true) this.#sendSubscribe(subscriber);
    }, delay);
  }

  #receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      console.warn('Catalyst: ignored a WebSocket frame that is not JSON');
      return;
    }
    const parsed = parseServerData(ServerFrameSchema, json);
    if (!parsed.success) {
      const type =
        typeof json === 'object' && json !== null && 'type' in json ? String(json.type) : 'no type';
      console.warn(`Catalyst: ignored a WebSocket frame this page does not understand (${type})`);
      return;
    }
    this.#pending.push(parsed.data);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // A burst (a replay of hundreds of events, or fast deltas) becomes one render.
    setTimeout(() => {
      this.#flush();
    }, 16);
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
