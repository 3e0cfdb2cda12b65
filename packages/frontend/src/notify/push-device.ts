import {
  PushSubscriptionBodySchema,
  type PushSubscriptionBody,
  type PushSubscriptionView,
} from '@catalyst/protocol';

/**
 * Push on this device (issue 29): the browser's push subscription, kept on Catalyst for this browser session, so
 * notifications reach the device with no tab open. Turned on only by a click ("Notify me on this device"), which
 * asks the browser's permission; turned off with the subscription ended on both sides. Where there is no service
 * worker or no PushManager (plain http on a network address, a dev server), push is not offered and the tab's own
 * notifications (use-attention.ts) go on as before.
 */

export type PushState =
  | { readonly kind: 'checking' }
  /** No service worker or no PushManager here. */
  | { readonly kind: 'unsupported' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'off'; readonly problem?: string }
  | { readonly kind: 'busy' }
  | { readonly kind: 'on'; readonly subscription: PushSubscriptionView; readonly problem?: string };

/** The browser's subscription, as much of `PushSubscription` as is used. */
export interface BrowserSubscription {
  readonly endpoint: string;
  readonly options: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): unknown;
  unsubscribe(): Promise<boolean>;
}

/** What the device needs of the browser and of Catalyst; the tests give their own. */
export interface PushPorts {
  /** The service worker's push manager; undefined where push is not offered. */
  pushManager(): Promise<
    | {
        getSubscription(): Promise<BrowserSubscription | null>;
        subscribe(options: {
          userVisibleOnly: true;
          applicationServerKey: Uint8Array<ArrayBuffer>;
        }): Promise<BrowserSubscription>;
      }
    | undefined
  >;
  permission(): NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  /** The session key the worker sends with an answer (sw/worker-session-key.ts); undefined deletes it. */
  keepWorkerKey(on: boolean): Promise<void>;
  api: {
    pushKey(): Promise<string>;
    addPushSubscription(body: PushSubscriptionBody): Promise<PushSubscriptionView>;
    removePushSubscription(endpoint: string): Promise<void>;
    mutePushIdea(ideaId: string, endpoint: string, isMuted: boolean): Promise<PushSubscriptionView>;
  };
  describeError(error: unknown): string;
}

export class PushDevice {
  #state: PushState = { kind: 'checking' };
  readonly #listeners = new Set<() => void>();
  readonly #ports: PushPorts;

  constructor(ports: PushPorts) {
    this.#ports = ports;
  }

  get state(): PushState {
    return this.#state;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): PushState => this.#state;

  /**
   * What this device has now. A subscription the browser still holds is posted again: the answer is its view
   * (muted ideas), and it belongs to this browser session from then on (after a new login, say).
   */
  async start(): Promise<void> {
    this.#set(await this.#current());
  }

  /** On the person's click only: the browser's permission, then a subscription kept on Catalyst. */
  async enable(): Promise<void> {
    this.#set({ kind: 'busy' });
    this.#set(await this.#subscribe());
  }

  /** Ends the subscription in the browser and on Catalyst; the worker forgets the session key. */
  async disable(): Promise<void> {
    const current = this.#state;
    this.#set({ kind: 'busy' });
    let problem: string | undefined;
    try {
      const manager = await this.#ports.pushManager();
      const subscription = await manager?.getSubscription();
      const endpoint =
        subscription?.endpoint ?? (current.kind === 'on' ? current.subscription.endpoint : undefined);
      await subscription?.unsubscribe();
      await this.#ports.keepWorkerKey(false);
      if (endpoint !== undefined) await this.#ports.api.removePushSubscription(endpoint);
    } catch (error) {
      problem = this.#ports.describeError(error);
    }
    this.#set(problem === undefined ? { kind: 'off' } : { kind: 'off', problem });
  }

  async setMuted(ideaId: string, isMuted: boolean): Promise<void> {
    const current = this.#state;
    if (current.kind !== 'on') return;
    try {
      const subscription = await this.#ports.api.mutePushIdea(ideaId, current.subscription.endpoint, isMuted);
      this.#set({ kind: 'on', subscription });
    } catch (error) {
      this.#set({
        kind: 'on',
        subscription: current.subscription,
        problem: this.#ports.describeError(error),
      });
    }
  }

  async #current(): Promise<PushState> {
    const manager = await this.#ports.pushManager().catch(() => undefined);
    if (manager === undefined) return { kind: 'unsupported' };
    if (this.#ports.permission() === 'denied') return { kind: 'blocked' };
    const existing = await manager.getSubscription().catch(() => null);
    if (existing === null || this.#ports.permission() !== 'granted') return { kind: 'off' };
    try {
      // Made with keys Catalyst no longer has (a damaged key file is replaced, issue 39): push services refuse
      // what the new keys sign, so it is not kept; turning notifications on again subscribes anew.
      const key = decodeBase64Url(await this.#ports.api.pushKey());
      if (!isSameKey(existing.options.applicationServerKey, key)) return { kind: 'off' };
      return await this.#keep(existing);
    } catch (error) {
      return { kind: 'off', problem: this.#ports.describeError(error) };
    }
  }

  async #subscribe(): Promise<PushState> {
    try {
      const permission = await this.#ports.requestPermission();
      if (permission === 'denied') return { kind: 'blocked' };
      if (permission !== 'granted') return { kind: 'off' };
      const manager = await this.#ports.pushManager();
      if (manager === undefined) return { kind: 'unsupported' };
      const key = decodeBase64Url(await this.#ports.api.pushKey());
      const existing = await manager.getSubscription();
      // A subscription made with another key (Catalyst's keys were made anew) cannot be reused: the browser
      // refuses a second one until it ends.
      if (existing !== null && !isSameKey(existing.options.applicationServerKey, key)) {
        await existing.unsubscribe();
      }
      return await this.#keep(await manager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
    } catch (error) {
      return { kind: 'off', problem: this.#ports.describeError(error) };
    }
  }

  async #keep(subscription: BrowserSubscription): Promise<PushState> {
    const body = PushSubscriptionBodySchema.parse(subscription.toJSON());
    await this.#ports.keepWorkerKey(true);
    return { kind: 'on', subscription: await this.#ports.api.addPushSubscription(body) };
  }

  #set(state: PushState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener();
  }
}

export function isMutedHere(state: PushState, ideaId: string): boolean {
  return state.kind === 'on' && state.subscription.mutedIdeas.includes(ideaId);
}

/** `applicationServerKey` as bytes: the VAPID public key comes as base64url. */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function isSameKey(held: ArrayBuffer | null, key: Uint8Array): boolean {
  if (held === null) return false;
  const bytes = new Uint8Array(held);
  return bytes.length === key.length && bytes.every((byte, index) => byte === key[index]);
}
