import { MAX_CLIENT_FRAME_BYTES, type TextDeltaFrame } from '@catalyst/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WS_MAX_PAYLOAD_BYTES } from '../src/server/ws-hub.ts';
import { SLOW_CLIENT_CLOSE_CODE, SLOW_CLIENT_CLOSE_REASON } from '../src/server/ws-connection.ts';
import {
  bearer,
  startServer,
  TEST_TOKEN,
  type HarnessOptions,
  type ServerHarness,
} from './server-harness.ts';
import { expectFrame, openClient, type TestClient } from './server-ws-client.ts';

/** Frames over a real WebSocket: parsing, subscriptions, run errors, slow and dead clients. */

let harness: ServerHarness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  expect(harness?.logs.join('\n')).not.toContain(TEST_TOKEN);
  harness = undefined;
});

async function setUp(options: HarnessOptions = {}) {
  const started = await startServer(options);
  harness = started;
  return started;
}

function textDelta(ideaId: string, text: string): TextDeltaFrame {
  return {
    type: 'claude:text_delta',
    ideaId,
    runId: 'run-1',
    messageId: 'msg-1',
    index: 0,
    text,
    parentToolUseId: null,
  };
}

async function connect(target: ServerHarness, options: { autoPong?: boolean } = {}) {
  const client = await openClient(target.wsUrl, { headers: bearer(), ...options });
  clients.push(client);
  return client;
}

describe('inbound frames', () => {
  it('answers malformed, unknown, oversized and unsafe frames with typed errors; the connection stays', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    const client = await connect(server);

    client.send('{"type": "subscribe", ');
    expect(await client.next()).toMatchObject({ type: 'error', code: 'INVALID_FRAME' });
    client.send({ type: 'delete_everything', ideaId: id, requestId: 'r1' });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'INVALID_FRAME', requestId: 'r1' });
    client.send(JSON.stringify({ type: 'chat', ideaId: id, message: 'x'.repeat(MAX_CLIENT_FRAME_BYTES) }));
    expect(await client.next()).toMatchObject({ type: 'error', code: 'FRAME_TOO_LARGE' });
    client.send({ type: 'subscribe', ideaId: '../../etc/passwd', requestId: 'r2' });
    const unsafe = expectFrame(await client.next(), 'error');
    expect(unsafe).toMatchObject({ code: 'INVALID_FRAME', requestId: 'r2' });
    expect(unsafe.message).toContain('ideaId');

    client.send({ type: 'subscribe', ideaId: id, requestId: 'r3' });
    expect(await client.next()).toEqual({
      type: 'subscribed',
      ideaId: id,
      lastSeq: 0,
      running: false,
      requestId: 'r3',
    });
    expect(server.service.calls).toEqual([`history ${id} 0 200`, `subscribe ${id} 0`]);
  });

  it('leaves a frame past ws’s maxPayload to ws, which closes with 1009', async () => {
    const server = await setUp();
    const client = await connect(server);
    client.send('x'.repeat(WS_MAX_PAYLOAD_BYTES + 1));
    expect((await client.closed).code).toBe(1009);
  });
});

describe('subscriptions', () => {
  it('replays what the client missed, then streams live events in order', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    for (const text of ['one', 'two', 'three']) server.service.emitText(id, text);
    const client = await connect(server);
    client.send({ type: 'subscribe', ideaId: id, sinceSeq: 1 });
    expect(await client.next()).toMatchObject({ type: 'claude:text', seq: 2, text: 'two' });
    expect(await client.next()).toMatchObject({ type: 'claude:text', seq: 3, text: 'three' });
    expect(await client.next()).toMatchObject({ type: 'subscribed', ideaId: id, lastSeq: 3 });
    server.service.emitText(id, 'four');
    server.service.emitText(id, 'five');
    expect(await client.next()).toMatchObject({ seq: 4, text: 'four' });
    expect(await client.next()).toMatchObject({ seq: 5, text: 'five' });
  });

  it('replaces the subscription when the same idea is subscribed again (no duplicates)', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    server.service.emitText(id, 'before');
    const client = await connect(server);
    client.send({ type: 'subscribe', ideaId: id });
    expect(await client.next()).toMatchObject({ seq: 1 });
    expect(await client.next()).toMatchObject({ type: 'subscribed', ideaId: id, lastSeq: 1 });
    client.send({ type: 'subscribe', ideaId: id, sinceSeq: 1, requestId: 'again' });
    expect(await client.next()).toMatchObject({ type: 'subscribed', lastSeq: 1, requestId: 'again' });
    expect(server.service.subscriberCount(id)).toBe(1);
    server.service.emitText(id, 'once');
    server.service.emitText(id, 'twice');
    expect(await client.next()).toMatchObject({ seq: 2, text: 'once' });
    expect(await client.next()).toMatchObject({ seq: 3, text: 'twice' });
  });

  it('drops a subscribe that is replaced while the service is still subscribing it', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    const subscribe = server.service.subscribe.bind(server.service);
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    server.service.subscribe = async (...args) => {
      await gate;
      return subscribe(...args);
    };
    const client = await connect(server);
    client.send({ type: 'subscribe', ideaId: id, requestId: 'first' });
    client.send({ type: 'subscribe', ideaId: id, requestId: 'second' });
    // Both frames are being handled (each replays its history first) before the service may answer.
    await server.service.until(
      () => server.service.calls.filter((call) => call.startsWith('history')).length === 2,
    );
    open();
    expect(await client.next()).toMatchObject({ type: 'subscribed', requestId: 'second' });
    await server.service.until(() => server.service.subscriberCount(id) === 1);
    server.service.emitText(id, 'only once');
    expect(await client.next()).toMatchObject({ seq: 1, text: 'only once' });
  });

  it('replays a history larger than the slow-client bound to a client that reads it', async () => {
    const server = await setUp({ maxBufferedBytes: 2 * 1024 * 1024 });
    const { id } = server.service.seedIdea();
    const big = 'x'.repeat(512 * 1024);
    for (let n = 0; n < 16; n++) server.service.emitText(id, big);
    const client = await connect(server);
    client.send({ type: 'subscribe', ideaId: id });
    for (let seq = 1; seq <= 16; seq++) expect(await client.next()).toMatchObject({ seq, text: big });
    expect(await client.next()).toMatchObject({ type: 'subscribed', lastSeq: 16 });
  });

  it('sends live-only frames to the subscribers of that moment, in order with events, and never replays them', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    const client = await connect(server);
    server.service.relayLive(textDelta(id, 'before anyone listened'));
    client.send({ type: 'subscribe', ideaId: id });
    expect(await client.next()).toMatchObject({ type: 'subscribed', lastSeq: 0 });
    server.service.relayLive(textDelta(id, 'Hel'));
    server.service.relayLive(textDelta(id, 'lo'));
    server.service.emitText(id, 'Hello');
    server.service.relayLive({ type: 'claude:text_reset', ideaId: id, runId: 'run-1' });
    expect(await client.next()).toEqual(textDelta(id, 'Hel'));
    expect(await client.next()).toEqual(textDelta(id, 'lo'));
    expect(await client.next()).toMatchObject({ type: 'claude:text', seq: 1, text: 'Hello' });
    expect(await client.next()).toEqual({ type: 'claude:text_reset', ideaId: id, runId: 'run-1' });

    const later = await connect(server);
    later.send({ type: 'subscribe', ideaId: id, sinceSeq: 0 });
    expect(await later.next()).toMatchObject({ type: 'claude:text', seq: 1 });
    expect(await later.next()).toMatchObject({ type: 'subscribed', lastSeq: 1 });
  });

  it('drops a subscription on unsubscribe, and every one when the socket closes', async () => {
    const server = await setUp();
    const first = server.service.seedIdea();
    const second = server.service.seedIdea();
    const client = await connect(server);
    for (const { id } of [first, second]) {
      client.send({ type: 'subscribe', ideaId: id });
      expect(await client.next()).toMatchObject({ type: 'subscribed', ideaId: id });
    }
    client.send({ type: 'unsubscribe', ideaId: first.id });
    await server.service.until(() => server.service.subscriberCount(first.id) === 0);
    expect(server.service.subscriberCount(second.id)).toBe(1);
    client.socket.close();
    await server.service.until(() => server.service.subscriberCount(second.id) === 0);
  });
});

describe('runs', () => {
  it('relays RUN_IN_PROGRESS, NO_RUN and IDEA_NOT_FOUND as error frames and keeps the connection', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    const client = await connect(server);
    client.send({ type: 'subscribe', ideaId: id });
    expect(await client.next()).toMatchObject({ type: 'subscribed' });
    client.send({ type: 'chat', ideaId: id, message: 'hello', requestId: 'c1' });
    expect(await client.next()).toMatchObject({ type: 'run:started', mode: 'chat', message: 'hello' });
    client.send({ type: 'build', ideaId: id, message: 'build it', requestId: 'c2' });
    expect(await client.next()).toMatchObject({
      type: 'error',
      code: 'RUN_IN_PROGRESS',
      requestId: 'c2',
      ideaId: id,
      message: 'This idea already has a run going.',
    });
    client.send({ type: 'cancel', ideaId: id });
    expect(await client.next()).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    client.send({ type: 'cancel', ideaId: id, requestId: 'c3' });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'NO_RUN', requestId: 'c3' });
    const missing = 'idea-ffffffffffffffff';
    client.send({ type: 'subscribe', ideaId: missing });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'IDEA_NOT_FOUND', ideaId: missing });
    client.send({ type: 'chat', ideaId: id, message: 'again' });
    expect(await client.next()).toMatchObject({ type: 'run:started', message: 'again' });
  });

  it('answers an unexpected failure with INTERNAL and a generic sentence', async () => {
    const server = await setUp();
    const { id } = server.service.seedIdea();
    server.service.cancelRun = () => Promise.reject(new Error('kaboom in /srv/secret.ts'));
    const client = await connect(server);
    client.send({ type: 'cancel', ideaId: id, requestId: 'x' });
    const error = expectFrame(await client.next(), 'error');
    expect(error).toMatchObject({ code: 'INTERNAL', requestId: 'x', ideaId: id });
    expect(error.message).not.toContain('kaboom');
    expect(server.logs.join('\n')).toContain('kaboom in /srv/secret.ts');
  });
});

describe('slow and dead clients', () => {
  /** Two clients subscribed to one idea under a 256 KiB send bound; the slow one has stopped reading. */
  async function slowAndFastSubscribers() {
    const server = await setUp({ maxBufferedBytes: 256 * 1024 });
    const { id } = server.service.seedIdea();
    const slow = await connect(server);
    const fast = await connect(server);
    for (const client of [slow, fast]) {
      client.send({ type: 'subscribe', ideaId: id });
      expect(await client.next()).toMatchObject({ type: 'subscribed' });
    }
    slow.socket.pause();
    return { server, id, slow, fast };
  }

  it('closes a client that stops reading with 4008 while another keeps receiving', async () => {
    const { server, id, slow, fast } = await slowAndFastSubscribers();
    const chunk = 'x'.repeat(64 * 1024);
    let seq = 0;
    // Kernel socket buffers absorb a few MiB before the server's own buffer grows; bounded so a bug fails fast.
    while (server.service.subscriberCount(id) === 2 && seq < 2000) {
      seq = server.service.emitText(id, chunk).seq;
      expect(await fast.next()).toMatchObject({ seq });
    }
    expect(server.service.subscriberCount(id)).toBe(1);
    const after = server.service.emitText(id, 'still here').seq;
    expect(await fast.next()).toMatchObject({ seq: after, text: 'still here' });

    slow.socket.resume();
    expect(await slow.closed).toEqual({ code: SLOW_CLIENT_CLOSE_CODE, reason: SLOW_CLIENT_CLOSE_REASON });
    expect(fast.socket.readyState).toBe(fast.socket.OPEN);
  });

  it('holds live-only text to the same bound: a client that stops reading is closed with 4008', async () => {
    const { server, id, slow, fast } = await slowAndFastSubscribers();
    const chunk = 'x'.repeat(64 * 1024);
    for (let sent = 0; server.service.subscriberCount(id) === 2 && sent < 2000; sent++) {
      server.service.relayLive(textDelta(id, chunk));
      expect(await fast.next()).toMatchObject({ type: 'claude:text_delta', text: chunk });
    }
    expect(server.service.subscriberCount(id)).toBe(1);
    slow.socket.resume();
    expect(await slow.closed).toEqual({ code: SLOW_CLIENT_CLOSE_CODE, reason: SLOW_CLIENT_CLOSE_REASON });
  });

  it('terminates a client that stops answering pings, and keeps one that answers', async () => {
    const server = await setUp({ heartbeatMs: 20 });
    const dead = await connect(server, { autoPong: false });
    const alive = await connect(server);
    let pings = 0;
    const pinged = new Promise<void>((resolve) => {
      alive.socket.on('ping', () => {
        pings += 1;
        if (pings === 5) resolve();
      });
    });
    expect((await dead.closed).code).toBe(1006);
    await pinged;
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
  });

  it('closes every client with 1001 when the hub closes', async () => {
    const server = await setUp();
    const client = await connect(server);
    await server.hub.close();
    expect((await client.closed).code).toBe(1001);
    expect(server.hub.clientCount).toBe(0);
  });
});
