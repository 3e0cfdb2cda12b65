import {
  IdeaConnection,
  type ConnectionState,
  type IdeaFrame,
  type IdeaSubscriber,
  type SendResult,
} from '@catalyst/client/idea-connection';
import { openBrowserSocket } from '../base/browser-socket.ts';

export type { ConnectionState, IdeaFrame, IdeaSubscriber, SendResult };

/**
 * The page's one WebSocket: the client package's idea connection (reconnects with backoff, subscribes each open
 * idea again from the last `seq` its view has, a login check when a socket cannot even open) over the browser's
 * WebSocket, with the page's own moments to try again: back online, or the tab shown again.
 */

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

export class Connection extends IdeaConnection {
  #hiddenSince: number | undefined;

  constructor(options: ConnectionOptions = {}) {
    const url = options.url ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const protocols = options.protocols ?? (() => []);
    super({
      connect: (events) => openBrowserSocket(url, protocols(), events),
      ...(options.checkLogin === undefined ? {} : { checkLogin: options.checkLogin }),
      ...(options.initialDelayMs === undefined ? {} : { initialDelayMs: options.initialDelayMs }),
      ...(options.maxDelayMs === undefined ? {} : { maxDelayMs: options.maxDelayMs }),
      onUnreadable: ({ type }) => {
        console.warn(
          type === undefined
            ? 'Catalyst: ignored a WebSocket frame that is not JSON'
            : `Catalyst: ignored a WebSocket frame this page does not understand (${type})`,
        );
      },
      isAsleep: () => document.visibilityState === 'hidden',
    });
    addEventListener('online', this.#onOnline);
    document.addEventListener('visibilitychange', this.#onVisibility);
  }

  override close(): void {
    removeEventListener('online', this.#onOnline);
    document.removeEventListener('visibilitychange', this.#onVisibility);
    super.close();
  }

  readonly #onOnline = (): void => {
    this.retryNow();
  };

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
    if (hiddenFor > STALE_AFTER_HIDDEN_MS && this.isOpen) {
      this.renew('page was hidden');
      return;
    }
    this.retryNow();
  };
}
