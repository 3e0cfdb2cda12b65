import { CatalystError } from '../../core/catalyst-error.ts';
import type { SshPoolLimits } from './ssh-config.ts';
import type { ChannelOpenResult, SshConnection } from './ssh-connection.ts';
import { createHandshakes, type Handshakes } from './ssh-handshakes.ts';
import {
  createSlot,
  hasRoomFor,
  isIdle,
  learnSessionLimit,
  releaseSlot,
  reserveSlot,
  type ChannelKind,
  type Slot,
} from './channel-slots.ts';

export type { ChannelKind } from './channel-slots.ts';

/**
 * The connections to one host (ssh-field-notes.md §4). Runs share a connection up to `maxRunsPerConnection`;
 * control work (SFTP, kill, probes) may also use the slots kept free above that. When every connection is full
 * another one is opened, up to `maxConnections`, at most `maxHandshakes` at a time; past that, requests queue
 * FIFO. A server that refuses a channel teaches the pool its real MaxSessions. A slot counts as taken until the
 * channel's 'close': sshd frees a session only once its process has exited (§4).
 */

/** An exec channel or an SFTP session: each holds one of sshd's MaxSessions slots until 'close'. */
export interface SessionChannel {
  once(event: 'close', listener: () => void): unknown;
}

export type ChannelOpener<T> = (connection: SshConnection) => Promise<ChannelOpenResult<T>>;

export interface PoolStats {
  /** Successful handshakes over the pool's life. */
  connectionsOpened: number;
  handshakeAttempts: number;
  /** Final handshake failures, after retries. */
  handshakeFailures: number;
  peakConnections: number;
  peakHandshakesInFlight: number;
  /** Channels the server refused (MaxSessions reached); each lowered that connection's limit. */
  channelRefusals: number;
  openConnections: number;
  openChannels: number;
  queued: number;
}

export interface SshPool {
  open<T extends SessionChannel>(kind: ChannelKind, opener: ChannelOpener<T>): Promise<T>;
  stats(): PoolStats;
  /** Ends every connection and fails queued requests; resolves once the sockets are closed. */
  close(): Promise<void>;
}

export interface SshPoolOptions {
  label: string;
  /** One handshake attempt; the pool retries retryable failures. */
  connect: () => Promise<SshConnection>;
  limits: SshPoolLimits;
  /**
   * A run waits for a channel and the pool may not open another connection: called once for each such run, so
   * that a holder of an idle run channel (a warm session, runs/warm-sessions.ts) can give one back.
   */
  onRunWaiting?: () => void;
}

/** A request whose connection vanished or refused it is re-queued this many times at most. */
const MAX_OPEN_ATTEMPTS = 5;
/** After a failed handshake while other connections live, wait this many backoffs before adding one. */
const GROWTH_COOLDOWN_BACKOFFS = 8;

interface Waiter {
  readonly kind: ChannelKind;
  attempts: number;
  /** onRunWaiting was called for it. */
  hasAskedForRoom?: boolean;
  start(slot: Slot): void;
  fail(error: CatalystError): void;
}

export function createSshPool(options: SshPoolOptions): SshPool {
  return new ConnectionPool(options);
}

class ConnectionPool implements SshPool {
  readonly #options: SshPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Waiter[] = [];
  readonly #handshakes: Handshakes;
  #isClosed = false;
  #growAfter = 0;
  readonly #counters = { connectionsOpened: 0, peakConnections: 0, channelRefusals: 0 };

  constructor(options: SshPoolOptions) {
    this.#options = options;
    this.#handshakes = createHandshakes({
      connect: options.connect,
      attempts: options.limits.connectAttempts,
      backoffMs: options.limits.connectBackoffMs,
      shouldGiveUp: () => this.#isClosed,
    });
  }

  open<T extends SessionChannel>(kind: ChannelKind, opener: ChannelOpener<T>): Promise<T> {
    if (this.#isClosed) return Promise.reject(this.#closedError());
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        kind,
        attempts: 0,
        start: (slot) => {
          this.#openOn(slot, waiter, { opener, resolve });
        },
        fail: reject,
      };
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  stats(): PoolStats {
    return {
      ...this.#counters,
      ...this.#handshakes.counters,
      openConnections: this.#slots.length,
      openChannels: this.#slots.reduce((sum, slot) => sum + slot.channels, 0),
      queued: this.#queue.length,
    };
  }

  async close(): Promise<void> {
    this.#isClosed = true;
    for (const waiter of this.#queue.splice(0)) waiter.fail(this.#closedError());
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.idleTimer);
      slot.connection.end();
    }
    await Promise.all(slots.map((slot) => slot.connection.lost));
  }

  #openOn<T extends SessionChannel>(
    slot: Slot,
    waiter: Waiter,
    request: { opener: ChannelOpener<T>; resolve: (channel: T) => void },
  ): void {
    reserveSlot(slot, waiter.kind);
    void request.opener(slot.connection).then((result) => {
      if (result.kind === 'opened') {
        result.channel.once('close', () => {
          this.#release(slot, waiter.kind);
        });
        request.resolve(result.channel);
        return;
      }
      this.#release(slot, waiter.kind);
      if (result.kind === 'failed') waiter.fail(result.error);
      else if (result.kind === 'refused') this.#learnLimit(slot, waiter);
      else this.#retry(waiter, result.message);
    });
  }

  #learnLimit(slot: Slot, waiter: Waiter): void {
    this.#counters.channelRefusals++;
    if (!learnSessionLimit(slot)) {
      const message = `${this.#options.label} refuses every session channel (sshd MaxSessions 0?)`;
      waiter.fail(
        new CatalystError('SSH_CONNECT_FAILED', message, { details: { host: this.#options.label } }),
      );
      return;
    }
    this.#retry(waiter, 'the server refused a channel');
  }

  #retry(waiter: Waiter, reason: string): void {
    waiter.attempts++;
    if (waiter.attempts >= MAX_OPEN_ATTEMPTS) {
      const message = `could not open a channel to ${this.#options.label}: ${reason}`;
      waiter.fail(new CatalystError('CONNECTION_LOST', message, { details: { host: this.#options.label } }));
      return;
    }
    this.#queue.unshift(waiter);
    this.#pump();
  }

  #pump(): void {
    if (this.#isClosed) return;
    for (let index = 0; index < this.#queue.length;) {
      const waiter = this.#queue[index];
      const slot = waiter === undefined ? undefined : this.#findSlot(waiter.kind);
      if (waiter === undefined || slot === undefined) {
        index++;
        continue;
      }
      // Control waiters may pass queued runs (a kill must not wait for a run to end); runs stay FIFO.
      this.#queue.splice(index, 1);
      waiter.start(slot);
    }
    this.#grow();
    this.#askForRoom();
  }

  /**
   * Runs still waiting when no connection can be added, beyond those the handshakes under way will serve: each asks
   * once for a held run channel back.
   */
  #askForRoom(): void {
    const onRunWaiting = this.#options.onRunWaiting;
    if (onRunWaiting === undefined) return;
    const { maxConnections, maxRunsPerConnection } = this.#options.limits;
    const connecting = this.#handshakes.inFlight();
    if (this.#slots.length + connecting < maxConnections) return;
    const runs = this.#queue.filter((waiter) => waiter.kind === 'run');
    for (const waiter of runs.slice(connecting * maxRunsPerConnection)) {
      if (waiter.hasAskedForRoom === true) continue;
      waiter.hasAskedForRoom = true;
      // Not from inside the pump: a listener that stops something opens a control channel, which pumps again.
      queueMicrotask(onRunWaiting);
    }
  }

  #findSlot(kind: ChannelKind): Slot | undefined {
    return this.#slots.find((slot) => hasRoomFor(slot, kind));
  }

  #grow(): void {
    const limits = this.#options.limits;
    if (Date.now() < this.#growAfter) return;
    const connecting = () => this.#handshakes.inFlight();
    while (
      this.#queue.length > connecting() * limits.maxRunsPerConnection &&
      connecting() < limits.maxHandshakes &&
      this.#slots.length + connecting() < limits.maxConnections
    ) {
      void this.#handshake();
    }
  }

  async #handshake(): Promise<void> {
    try {
      this.#adopt(await this.#handshakes.start());
    } catch (error) {
      this.#failHandshake(error);
    }
  }

  #adopt(connection: SshConnection): void {
    if (this.#isClosed) {
      connection.end();
      return;
    }
    const slot = createSlot(connection, this.#options.limits);
    this.#slots.push(slot);
    this.#counters.connectionsOpened++;
    this.#counters.peakConnections = Math.max(this.#counters.peakConnections, this.#slots.length);
    // A lost connection is evicted; its channels get 'close' without an exit status (the runs' outcome).
    void connection.lost.then(() => {
      this.#evict(slot);
    });
    this.#pump();
    if (isIdle(slot)) this.#startIdleTimer(slot);
  }

  #failHandshake(error: unknown): void {
    const failure =
      error instanceof CatalystError
        ? error
        : new CatalystError('SSH_CONNECT_FAILED', `cannot connect to ${this.#options.label}`, {
            cause: error,
          });
    if (this.#slots.length === 0 && this.#handshakes.inFlight() === 0) {
      // Nothing could ever serve these requests.
      for (const waiter of this.#queue.splice(0)) waiter.fail(failure);
      return;
    }
    const cooldownMs = this.#options.limits.connectBackoffMs * GROWTH_COOLDOWN_BACKOFFS;
    this.#growAfter = Date.now() + cooldownMs;
    setTimeout(() => {
      this.#pump();
    }, cooldownMs).unref();
  }

  #release(slot: Slot, kind: ChannelKind): void {
    releaseSlot(slot, kind);
    if (isIdle(slot) && this.#slots.includes(slot)) this.#startIdleTimer(slot);
    this.#pump();
  }

  #startIdleTimer(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (isIdle(slot)) this.#evict(slot);
    }, this.#options.limits.idleMs);
    slot.idleTimer.unref();
  }

  #evict(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    slot.connection.end();
    this.#pump();
  }

  #closedError(): CatalystError {
    return new CatalystError('CONNECTION_LOST', `the SSH host ${this.#options.label} was closed`, {
      details: { host: this.#options.label },
    });
  }
}
