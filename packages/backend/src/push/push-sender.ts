import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import webpush, { type RequestDetails } from 'web-push';
import type { PushPayload } from '@catalyst/protocol';
import { encodePushPayload } from './push-payload.ts';
import { NonPublicAddressError } from './push-address-lookup.ts';
import { postPushRequest } from './push-request.ts';
import { classifyPushAnswer, retryDelayMs, type BackoffPolicy, type PushOutcome } from './push-retry.ts';
import type { PushSubscriptionStore } from './push-subscription-store.ts';
import type { VapidKeys } from './vapid-keys.ts';

/**
 * Sends Web Push messages (RFC 8030; encrypted per RFC 8291 and signed per RFC 8292 by `web-push`) without ever
 * holding up the caller: `send` queues and returns, a few pushes go out at a time, each with a deadline. A
 * subscription the push service says has ended (404, 410) is removed from the store; 429, 5xx and no answer are
 * tried again after a doubling wait (no sooner than Retry-After), a few times; any other refusal is logged and
 * dropped. Logs name a push service by its origin and a subscription by a digest of its endpoint: never the
 * endpoint, the keys or the payload.
 */

export interface PushTarget {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

export interface SendOptions {
  /** `high` for what waits for a person (a question, a permission request); `normal` otherwise. */
  urgency?: PushUrgency;
  /** How long the push service keeps the message for a device that is offline (default 12 h). */
  ttlSeconds?: number;
}

export interface PushSenderOptions {
  vapid: VapidKeys;
  /** The VAPID `sub`: a mailto: or https: contact (vapidSubject()). */
  subject: string;
  /** Where a subscription the push service has ended is removed; a retry goes only to one still there. */
  subscriptions: Pick<PushSubscriptionStore, 'remove' | 'list'>;
  logger: Logger;
  /** Pushes in flight at once (default 4). */
  concurrency?: number;
  /** The most one attempt may take, answer included (default 10 s). */
  timeoutMs?: number;
  /** Pushes waiting for a slot; beyond, a push is dropped with a log line (default 1000). */
  maxQueued?: number;
  backoff?: Partial<BackoffPolicy>;
  /** Waits before a retry; rejects when `signal` aborts. Tests pass one that records and returns at once. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Posts to loopback and private addresses too: tests only (the test kit's push service is on 127.0.0.1). */
  allowPrivateAddresses?: boolean;
}

export interface PushSender {
  /**
   * Queues a push and returns at once: false when it was dropped (a full queue, a closed sender). Throws
   * INVALID_ARGUMENT for a payload that is not a push payload (a caller's mistake, so it is loud).
   */
  send(target: PushTarget, payload: PushPayload, options?: SendOptions): boolean;
  /** Resolves once every queued push has been delivered or given up, retries included. */
  idle(): Promise<void>;
  /** Stops: what is in flight is cut off, what waits is dropped (and counted in a log line). */
  close(): Promise<void>;
}

interface Job {
  readonly target: PushTarget;
  readonly body: string;
  readonly urgency: PushUrgency;
  readonly ttlSeconds: number;
  readonly topic: string;
  attempt: number;
}

const DEFAULT_TTL_SECONDS = 12 * 60 * 60;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_QUEUED = 1000;
const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 1_000, maxDelayMs: 10 * 60_000, maxAttempts: 4 };

export function createPushSender(options: PushSenderOptions): PushSender {
  return new QueuedPushSender(options);
}

class QueuedPushSender implements PushSender {
  readonly #options: PushSenderOptions;
  readonly #backoff: BackoffPolicy;
  readonly #wait: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #stop = new AbortController();
  readonly #queue: Job[] = [];
  #active = 0;
  /** Pushes queued, in flight or waiting to be tried again. */
  #pending = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(options: PushSenderOptions) {
    this.#options = options;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.#wait = options.wait ?? ((ms, signal) => sleep(ms, undefined, { signal, ref: false }));
  }

  send(target: PushTarget, payload: PushPayload, options: SendOptions = {}): boolean {
    const body = encodePushPayload(payload);
    if (this.#stop.signal.aborted) return false;
    if (this.#queue.length >= (this.#options.maxQueued ?? DEFAULT_MAX_QUEUED)) {
      this.#options.logger.warn(
        { pushService: originOf(target.endpoint) },
        'a push was dropped: too many are waiting',
      );
      return false;
    }
    this.#queue.push({
      target,
      body,
      urgency: options.urgency ?? 'normal',
      ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
      topic: topicOf(payload.tag),
      attempt: 0,
    });
    this.#pending += 1;
    this.#pump();
    return true;
  }

  idle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (!this.#stop.signal.aborted && this.#pending > 0) {
      this.#options.logger.info({ pushes: this.#pending }, 'pushes not sent at shutdown');
    }
    this.#stop.abort();
    for (const _ of this.#queue.splice(0)) this.#settleOne();
    await this.idle();
  }

  #pump(): void {
    const concurrency = this.#options.concurrency ?? DEFAULT_CONCURRENCY;
    while (this.#active < concurrency && !this.#stop.signal.aborted) {
      const job = this.#queue.shift();
      if (job === undefined) return;
      this.#active += 1;
      void this.#attempt(job).finally(() => {
        this.#active -= 1;
        this.#pump();
      });
    }
  }

  async #attempt(job: Job): Promise<void> {
    job.attempt += 1;
    const { outcome, detail } = await this.#deliver(job);
    const fields = { ...logFields(job), ...detail };
    const { logger } = this.#options;
    if (this.#stop.signal.aborted) {
      this.#settleOne();
      return;
    }
    switch (outcome.kind) {
      case 'delivered':
        break;
      case 'gone':
        await this.#forget(job, fields);
        break;
      case 'refused':
        // With a status the push service refused it; without, Catalyst did (keys, an address: `reason` says).
        logger.warn(fields, `a push was refused${'status' in fields ? ' by the push service' : ''}; dropped`);
        break;
      case 'retry': {
        const delayMs = retryDelayMs(job.attempt, outcome, this.#backoff);
        if (delayMs !== undefined) {
          logger.info({ ...fields, delayMs }, 'a push failed; trying again');
          this.#retryLater(job, delayMs);
          return;
        }
        logger.warn(fields, 'a push was given up: the push service kept failing');
        break;
      }
    }
    this.#settleOne();
  }

  /** The wait holds no slot: other pushes go out meanwhile. */
  #retryLater(job: Job, delayMs: number): void {
    this.#wait(delayMs, this.#stop.signal).then(
      () => {
        // Forgotten meanwhile (turned off, signed out, ended by the push service): no retry to it.
        const endpoint = job.target.endpoint;
        const isKept = this.#options.subscriptions.list().some((kept) => kept.endpoint === endpoint);
        if (this.#stop.signal.aborted || !isKept) {
          this.#settleOne();
          return;
        }
        this.#queue.push(job);
        this.#pump();
      },
      () => {
        this.#settleOne();
      },
    );
  }

  async #deliver(job: Job): Promise<{ outcome: PushOutcome; detail: Record<string, unknown> }> {
    let request: RequestDetails;
    try {
      request = webpush.generateRequestDetails(job.target, job.body, {
        vapidDetails: { subject: this.#options.subject, ...this.#options.vapid },
        TTL: job.ttlSeconds,
        urgency: job.urgency,
        topic: job.topic,
        contentEncoding: 'aes128gcm',
      });
    } catch (error) {
      // Keys that are no P-256 point: no attempt will ever work.
      return {
        outcome: { kind: 'refused' },
        detail: { reason: `cannot encrypt for it: ${errorText(error)}` },
      };
    }
    try {
      const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const answer = await postPushRequest(request, {
        timeoutMs,
        signal: this.#stop.signal,
        allowPrivateAddresses: this.#options.allowPrivateAddresses ?? false,
      });
      const now = this.#options.now?.() ?? Date.now();
      const outcome = classifyPushAnswer(answer.status, answer.headers['retry-after'], now);
      return { outcome, detail: { status: answer.status } };
    } catch (error) {
      // A name that resolves to a private address: refused here, and not tried again (issue 39, finding 1).
      const kind = error instanceof NonPublicAddressError ? 'refused' : 'retry';
      return { outcome: { kind }, detail: { reason: errorText(error) } };
    }
  }

  async #forget(job: Job, fields: Record<string, unknown>): Promise<void> {
    try {
      await this.#options.subscriptions.remove(job.target.endpoint);
      this.#options.logger.info(fields, 'the push service says a subscription has ended; removed');
    } catch (error) {
      this.#options.logger.error(
        { ...fields, err: error },
        'an ended push subscription could not be removed',
      );
    }
  }

  #settleOne(): void {
    this.#pending -= 1;
    if (this.#pending > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * RFC 8030 §5.4: a push service replaces a message it still holds with a newer one of the same Topic, as a device
 * replaces a notification with one of the same tag; so the topic is the tag's, in the 32 base64url characters
 * a Topic may have.
 */
function topicOf(tag: string): string {
  return createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}

function logFields(job: Job): Record<string, unknown> {
  return {
    pushService: originOf(job.target.endpoint),
    subscription: createHash('sha256').update(job.target.endpoint).digest('hex').slice(0, 12),
    attempt: job.attempt,
  };
}

function originOf(endpoint: string): string {
  return URL.canParse(endpoint) ? new URL(endpoint).origin : 'an unparsable endpoint';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
