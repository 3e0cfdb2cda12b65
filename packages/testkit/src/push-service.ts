import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createPushReceiverKeys,
  decryptPushMessage,
  PushDecryptError,
  type PushReceiverKeys,
} from './push-crypto.ts';
import { createPushWaiters, type PushRefusal, type ReceivedPush } from './push-waiters.ts';
import { verifyVapidAuthorization, VapidError } from './push-vapid.ts';

export type { PushRefusal, ReceivedPush } from './push-waiters.ts';

/**
 * A browser's push service on 127.0.0.1 (port 0), for testing Catalyst's Web Push sender over real HTTP. It makes
 * subscriptions as a browser would (a P-256 key pair and an auth secret per endpoint), and checks each POST as a
 * push service does: VAPID (push-vapid.ts), `Content-Encoding: aes128gcm`, `TTL`, at most 4096 octets. Then it
 * decrypts the body with the subscription's private key, as the browser would (push-crypto.ts). A request it
 * refuses is a fault of the sender: it is recorded, and whoever waits for a message hears of it at once.
 */

/** `PushSubscription.toJSON()` as a page sends it to its server. */
export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** What the service answers a request that passed its checks; `times` (default 1) says for how many requests. */
export type PushAnswer =
  | { status: number; retryAfter?: string; times?: number }
  /** No answer at all: the request stays open until the sender gives up or the service closes. */
  | { hang: true; times?: number };

export interface PushRequestRecord {
  readonly endpoint: string;
  /** The answer, or 'hang'. */
  readonly status: number | 'hang';
  readonly at: number;
}

export interface WaitOptions {
  /** Default 5 s: the most a test waits before failing, not a pause. */
  timeoutMs?: number;
}

export interface MockPushService {
  readonly origin: string;
  readonly messages: readonly ReceivedPush[];
  readonly refusals: readonly PushRefusal[];
  /** `applicationServerKey` restricts the subscription to that VAPID key, as `PushManager.subscribe()` does. */
  createSubscription(options?: { applicationServerKey?: string }): PushSubscriptionJson;
  /** The answers to the next requests to `endpoint` that pass the checks, in order; 201 after them. */
  answer(endpoint: string, ...answers: PushAnswer[]): void;
  /** Every request that passed the checks, to `endpoint` when given. */
  requests(endpoint?: string): PushRequestRecord[];
  /** The first message `nextMessage` has not handed out yet, once it has arrived. */
  nextMessage(options?: WaitOptions): Promise<ReceivedPush>;
  /** The first `count` messages, once that many have arrived. */
  waitForMessages(count: number, options?: WaitOptions): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

interface Subscription {
  readonly keys: PushReceiverKeys;
  readonly applicationServerKey?: string;
  readonly answers: PushAnswer[];
}

/** RFC 8291 §4: push services must take 4096 octets of body; this one takes no more. */
const MAX_BODY_OCTETS = 4096;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

class Refusal extends Error {
  readonly status: number;
  constructor(status: number, reason: string) {
    super(reason);
    this.status = status;
  }
}

export async function startMockPushService(): Promise<MockPushService> {
  const subscriptions = new Map<string, Subscription>();
  const messages: ReceivedPush[] = [];
  const refusals: PushRefusal[] = [];
  const requests: PushRequestRecord[] = [];
  const waiters = createPushWaiters(messages, refusals);

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('mock push service: no TCP address');
  const origin = `http://127.0.0.1:${address.port}`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const endpoint = `${origin}${request.url ?? ''}`;
    const subscription = subscriptions.get(endpoint);
    if (request.method !== 'POST' || subscription === undefined) {
      await readBody(request).catch(() => undefined);
      response.writeHead(404).end();
      return;
    }
    let payload: unknown;
    try {
      const body = await readBody(request);
      checkHeaders(request.headers, { audience: origin, subscription });
      payload = decodePayload(decryptBody(body, subscription.keys));
    } catch (error) {
      const refusal = toRefusal(error);
      refusals.push({ endpoint, status: refusal.status, reason: refusal.message });
      waiters.changed();
      response.writeHead(refusal.status, { 'content-type': 'text/plain' }).end(refusal.message);
      return;
    }
    const answer = takeAnswer(subscription);
    requests.push({ endpoint, status: 'hang' in answer ? 'hang' : answer.status, at: Date.now() });
    if ('hang' in answer) return;
    if (answer.status === 201) {
      messages.push({ endpoint, payload, headers: request.headers, receivedAt: Date.now() });
      waiters.changed();
      response.writeHead(201, { location: `${origin}/message/${randomBytes(8).toString('hex')}` }).end();
      return;
    }
    const headers = answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter };
    response.writeHead(answer.status, headers).end();
  }

  return {
    origin,
    messages,
    refusals,
    createSubscription(options = {}) {
      const keys = createPushReceiverKeys();
      const endpoint = `${origin}/push/${randomBytes(16).toString('base64url')}`;
      subscriptions.set(endpoint, { keys, answers: [], ...options });
      return {
        endpoint,
        keys: { p256dh: keys.publicKey.toString('base64url'), auth: keys.authSecret.toString('base64url') },
      };
    },
    answer(endpoint, ...answers) {
      const subscription = subscriptions.get(endpoint);
      if (subscription === undefined) throw new Error(`mock push service: no subscription ${endpoint}`);
      subscription.answers.push(...answers.map((answer) => ({ ...answer })));
    },
    requests: (endpoint) =>
      requests.filter((record) => endpoint === undefined || record.endpoint === endpoint),
    nextMessage: (options) => waiters.nextMessage(options?.timeoutMs),
    waitForMessages: (count, options) => waiters.waitForMessages(count, options?.timeoutMs),
    async close() {
      waiters.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

function checkHeaders(
  headers: IncomingHttpHeaders,
  expected: { audience: string; subscription: Subscription },
): void {
  const { applicationServerKey } = expected.subscription;
  verifyVapidAuthorization(headers.authorization, {
    audience: expected.audience,
    nowSeconds: Math.floor(Date.now() / 1000),
    ...(applicationServerKey === undefined ? {} : { applicationServerKey }),
  });
  if (headers['content-encoding'] !== 'aes128gcm')
    throw new Refusal(400, 'Content-Encoding is not aes128gcm');
  // RFC 8030 §5.2: TTL is required, a whole number of seconds.
  const ttl = headers.ttl;
  if (typeof ttl !== 'string' || !/^\d+$/.test(ttl)) throw new Refusal(400, 'no TTL header of seconds');
  const urgency = headers.urgency;
  if (typeof urgency === 'string' && !URGENCIES.has(urgency)) throw new Refusal(400, `Urgency ${urgency}`);
}

function decryptBody(body: Buffer, keys: PushReceiverKeys): Buffer {
  if (body.length > MAX_BODY_OCTETS) throw new Refusal(413, `the body is ${body.length} octets, over 4096`);
  return decryptPushMessage(body, keys);
}

function decodePayload(plaintext: Buffer): unknown {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function takeAnswer(subscription: Subscription): PushAnswer {
  const next = subscription.answers[0];
  if (next === undefined) return { status: 201 };
  const times = (next.times ?? 1) - 1;
  if (times <= 0) subscription.answers.shift();
  else next.times = times;
  return next;
}

function toRefusal(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof VapidError) return new Refusal(error.status, `VAPID: ${error.message}`);
  if (error instanceof PushDecryptError) return new Refusal(400, `encryption: ${error.message}`);
  if (error instanceof TypeError) return new Refusal(400, `the payload is not UTF-8 (${error.message})`);
  throw error;
}

/** The whole body; a body past twice the limit is cut off, enough to tell "too big". */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    if (!Buffer.isBuffer(chunk)) throw new Error('mock push service: a body chunk that is not bytes');
    length += chunk.length;
    if (length <= 2 * MAX_BODY_OCTETS) chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
