import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPushService, type MockPushService, type PushSubscriptionJson } from '@catalyst/testkit';
import { openWebPush, type OpenWebPushOptions, type WebPush } from '../src/push/open-web-push.ts';
import type { PushPayload } from '@catalyst/protocol';
import { openPushSubscriptions, PUSH_SUBSCRIPTIONS_FILE } from '../src/push/push-subscription-store.ts';
import type { StoredPushSubscription } from '../src/push/push-subscription-schema.ts';

// The sender over real HTTP on loopback against the test kit's push service, which checks VAPID and decrypts
// each message with the subscription's own keys (independently of web-push). Retry waits are recorded and
// skipped, so no test sleeps through a backoff.

const SESSION = 'session-0123456789abcdef';
const payload: PushPayload = {
  title: 'Refactor the parser',
  body: 'Claude asks which parser to keep.',
  url: '/ideas/idea-0123456789abcdef#waiting',
  tag: 'idea-0123456789abcdef',
  actions: [
    { action: 'answer:0', title: 'The old one' },
    { action: 'answer:1', title: 'The new one' },
  ],
};

describe('the Web Push sender', () => {
  let configDir: string;
  let service: MockPushService;
  let push: WebPush | undefined;
  let logs: string[];
  let waits: number[];

  beforeEach(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'catalyst-push-'));
    service = await startMockPushService();
    logs = [];
    waits = [];
  });
  afterEach(async () => {
    await push?.close();
    push = undefined;
    await service.close();
    await rm(configDir, { recursive: true, force: true });
  });

  async function open(
    sending: OpenWebPushOptions['sending'] = {},
    allowLoopbackHttp = true,
  ): Promise<WebPush> {
    push = await openWebPush({
      configDir,
      logger: pino({ level: 'debug' }, { write: (line: string) => logs.push(line) }),
      allowLoopbackHttp,
      sending: {
        wait: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
        ...sending,
      },
    });
    return push;
  }

  /** A device subscribed with Catalyst's VAPID key, as the page would do it. */
  async function subscribe(web: WebPush): Promise<[PushSubscriptionJson, StoredPushSubscription]> {
    const browser = service.createSubscription({ applicationServerKey: web.publicKey });
    return [browser, await web.subscriptions.add(SESSION, browser)];
  }

  it('delivers one push that the device decrypts to the title, sentence and URL, urgent, with its TTL', async () => {
    const web = await open();
    const [browser, stored] = await subscribe(web);
    expect(web.sender.send(stored, payload, { urgency: 'high', ttlSeconds: 600 })).toBe(true);
    const message = await service.nextMessage();
    expect(message.payload).toEqual(payload);
    expect(message.headers).toMatchObject({ urgency: 'high', ttl: '600', 'content-encoding': 'aes128gcm' });
    await web.sender.idle();
    expect(service.messages).toHaveLength(1);
    const logText = logs.join('\n');
    for (const secret of [
      browser.endpoint,
      browser.keys.p256dh,
      browser.keys.auth,
      payload.body,
      payload.title,
    ]) {
      expect(logText).not.toContain(secret);
    }
  });

  it('removes a subscription the push service answers 410 or 404 for, from the store and its file', async () => {
    const web = await open();
    const [, gone] = await subscribe(web);
    const [, unknown] = await subscribe(web);
    const [, alive] = await subscribe(web);
    service.answer(gone.endpoint, { status: 410 });
    service.answer(unknown.endpoint, { status: 404 });
    for (const target of [gone, unknown, alive]) web.sender.send(target, payload);
    await web.sender.idle();
    expect(web.subscriptions.list()).toEqual([alive]);
    const file = await readFile(join(configDir, PUSH_SUBSCRIPTIONS_FILE), 'utf8');
    expect(file).not.toContain(gone.endpoint);
    expect(file).not.toContain(unknown.endpoint);
    const reopened = await openPushSubscriptions({ configDir, allowLoopbackHttp: true });
    expect(reopened.list()).toEqual([alive]);
    const statusOf = (target: StoredPushSubscription) =>
      service.requests(target.endpoint).map((r) => r.status);
    expect([gone, unknown, alive].map(statusOf)).toEqual([[410], [404], [201]]);
  });

  it('tries a 503 again after a doubling wait, and delivers once', async () => {
    const web = await open();
    const [, stored] = await subscribe(web);
    service.answer(stored.endpoint, { status: 503, times: 2 });
    web.sender.send(stored, payload);
    expect((await service.nextMessage()).payload).toEqual(payload);
    await web.sender.idle();
    expect(service.requests(stored.endpoint).map((request) => request.status)).toEqual([503, 503, 201]);
    expect(waits).toEqual([1000, 2000]);
    expect(service.messages).toHaveLength(1);
  });

  it('does not try again a subscription forgotten while its push waited for a retry', async () => {
    let forget = (): Promise<unknown> => Promise.resolve();
    const web = await open({
      wait: async (ms) => {
        waits.push(ms);
        // Turned off, or its browser signed out, while the push service was failing.
        await forget();
      },
    });
    const [, stored] = await subscribe(web);
    forget = () => web.subscriptions.remove(stored.endpoint);
    service.answer(stored.endpoint, { status: 503, times: 2 });
    web.sender.send(stored, payload);
    await web.sender.idle();
    expect(service.requests(stored.endpoint).map((request) => request.status)).toEqual([503]);
    expect(service.messages).toHaveLength(0);
  });

  it('waits as long as a 429’s Retry-After says before trying again', async () => {
    const web = await open();
    const [, stored] = await subscribe(web);
    service.answer(stored.endpoint, { status: 429, retryAfter: '7' });
    web.sender.send(stored, payload);
    await service.nextMessage();
    expect(waits).toEqual([7000]);
    expect(service.requests(stored.endpoint).map((request) => request.status)).toEqual([429, 201]);
  });

  it('gives up after four attempts, or when Retry-After is beyond the longest wait, and keeps the subscription', async () => {
    const web = await open();
    const [, failing] = await subscribe(web);
    const [, slow] = await subscribe(web);
    service.answer(failing.endpoint, { status: 500, times: 10 });
    service.answer(slow.endpoint, { status: 429, retryAfter: '3600' });
    web.sender.send(failing, payload);
    web.sender.send(slow, payload);
    await web.sender.idle();
    expect(service.requests(failing.endpoint)).toHaveLength(4);
    expect(service.requests(slow.endpoint)).toHaveLength(1);
    expect(service.messages).toEqual([]);
    expect(web.subscriptions.list()).toHaveLength(2);
    expect(logs.filter((line) => line.includes('a push was given up'))).toHaveLength(2);
  });

  it('drops a push the push service refuses for good (403: a subscription made with another key)', async () => {
    const web = await open();
    const browser = service.createSubscription({ applicationServerKey: `B${'A'.repeat(86)}` });
    const stored = await web.subscriptions.add(SESSION, browser);
    web.sender.send(stored, payload);
    await web.sender.idle();
    expect(service.refusals).toEqual([expect.objectContaining({ status: 403 })]);
    expect(waits).toEqual([]);
    expect(web.subscriptions.list()).toEqual([stored]);
    expect(
      logs.some((line) => line.includes('refused by the push service') && line.includes('"status":403')),
    ).toBe(true);
  });

  it('goes on sending to others while one push service does not answer', async () => {
    const web = await open({ concurrency: 2, timeoutMs: 60_000 });
    const [, hanging] = await subscribe(web);
    service.answer(hanging.endpoint, { hang: true });
    web.sender.send(hanging, payload);
    const others = await Promise.all([subscribe(web), subscribe(web), subscribe(web)]);
    for (const [, stored] of others) web.sender.send(stored, payload);
    await service.waitForMessages(3);
    expect(service.requests(hanging.endpoint)).toEqual([expect.objectContaining({ status: 'hang' })]);
  });

  it('at close, cuts off what is in flight, drops what waits for a retry, and takes no more', async () => {
    const untilAborted = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          reject(new Error('closed'));
        });
      });
    const web = await open({ concurrency: 2, timeoutMs: 60_000, wait: untilAborted });
    const [[, hanging], [, failing], [, fine]] = [
      await subscribe(web),
      await subscribe(web),
      await subscribe(web),
    ];
    service.answer(hanging.endpoint, { hang: true });
    service.answer(failing.endpoint, { status: 503 });
    for (const target of [hanging, failing, fine]) web.sender.send(target, payload);
    expect((await service.nextMessage()).endpoint).toBe(fine.endpoint);
    await web.sender.close();
    await web.sender.idle();
    expect(web.sender.send(fine, payload)).toBe(false);
    const statusOf = (target: StoredPushSubscription) =>
      service.requests(target.endpoint).map((r) => r.status);
    expect([hanging, failing, fine].map(statusOf)).toEqual([['hang'], [503], [201]]);
    // The hanging push and the one waiting for its retry; the delivered one too, if its answer was still on the way.
    expect(logs.find((line) => line.includes('pushes not sent at shutdown'))).toMatch(/"pushes":[23]\b/);
  });

  it('cuts off a push service that does not answer in time, and tries it again', async () => {
    const web = await open({ concurrency: 1, timeoutMs: 200, backoff: { maxAttempts: 2 } });
    const [, hanging] = await subscribe(web);
    const [, other] = await subscribe(web);
    service.answer(hanging.endpoint, { hang: true, times: 2 });
    web.sender.send(hanging, payload);
    web.sender.send(other, payload);
    expect((await service.nextMessage()).endpoint).toBe(other.endpoint);
    await web.sender.idle();
    expect(service.requests(hanging.endpoint)).toHaveLength(2);
    expect(logs.filter((line) => line.includes('did not answer within 200 ms'))).toHaveLength(2);
  });

  it('posts nothing to a name that resolves to this machine, nor to a loopback address, and does not try again', async () => {
    const web = await open({}, false);
    const browser = service.createSubscription({ applicationServerKey: web.publicKey });
    // As a push service's name whose DNS answer an attacker controls, or changed since it was subscribed.
    const byName = { ...browser, endpoint: browser.endpoint.replace('//127.0.0.1:', '//localhost:') };
    expect(byName.endpoint).not.toBe(browser.endpoint);
    web.sender.send(byName, payload);
    web.sender.send(browser, payload);
    await web.sender.idle();
    expect(service.requests()).toEqual([]);
    expect(service.messages).toEqual([]);
    expect(waits).toEqual([]);
    const refusals = logs.filter((line) => line.includes('which is not a public address'));
    expect(refusals).toHaveLength(2);
    expect(refusals.join('\n')).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
  });
});
