import type { RelayEvent } from '@catalyst/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection, type ConnectionState, type IdeaFrame } from './connection.ts';
import { startTestWsServer, until, type TestWsServer } from '../../test/support/test-ws-server.ts';

// The page's connection against a real ws server: reconnects by itself, and each reconnect subscribes again
// from the newest seq the view holds.

const IDEA = 'idea-0123456789abcdef';

function event(seq: number): RelayEvent {
  return {
    type: 'claude:text',
    ideaId: IDEA,
    runId: 'run-1',
    seq,
    ts: new Date(0).toISOString(),
    text: `line ${seq}`,
    messageId: 'msg-1',
    parentToolUseId: null,
  };
}

describe('Connection', () => {
  let server: TestWsServer;
  let connection: Connection | undefined;
  beforeEach(async () => {
    server = await startTestWsServer();
  });
  afterEach(async () => {
    connection?.close();
    await server.close();
  });

  it('subscribes, delivers parsed frames in batches, and after a drop resubscribes from the last seq', async () => {
    const states: ConnectionState[] = [];
    const received: IdeaFrame[] = [];
    let lastSeq = 0;
    let disconnects = 0;
    const first = server.nextSocket();
    connection = new Connection({ url: server.url, initialDelayMs: 10 });
    connection.onState((state) => states.push(state));
    connection.subscribe({
      ideaId: IDEA,
      lastSeq: () => lastSeq,
      onFrames: (frames) => {
        received.push(...frames);
        for (const frame of frames) if ('seq' in frame) lastSeq = Math.max(lastSeq, frame.seq);
      },
      onSubscribed: () => undefined,
      onError: () => undefined,
      onDisconnected: () => {
        disconnects += 1;
      },
    });
    const socket = await first;
    await until(() => server.frames.length === 1);
    expect(server.frames[0]).toEqual({
      type: 'subscribe',
      ideaId: IDEA,
      requestId: expect.any(String) as string,
    });

    for (const seq of [1, 2, 3]) socket.send(JSON.stringify(event(seq)));
    socket.send('not json');
    socket.send(JSON.stringify({ type: 'claude:text', ideaId: IDEA })); // fails the schema: ignored
    await until(() => lastSeq === 3);
    expect(received.map((frame) => ('seq' in frame ? frame.seq : -1))).toEqual([1, 2, 3]);

    const second = server.nextSocket();
    socket.terminate();
    await second;
    await until(() => server.frames.length === 2);
    expect(server.frames[1]).toEqual({
      type: 'subscribe',
      ideaId: IDEA,
      sinceSeq: 3,
      requestId: expect.any(String) as string,
    });
    expect(states).toEqual(['open', 'reconnecting', 'open']);
    expect(disconnects).toBe(1);
  });

  it('turns a socket that cannot open into "unauthorized" when the login check fails', async () => {
    const url = server.url;
    await server.close();
    server = await startTestWsServer(); // a different port: the old one refuses
    const states: ConnectionState[] = [];
    connection = new Connection({ url, initialDelayMs: 10, checkLogin: () => Promise.resolve(false) });
    connection.onState((state) => states.push(state));
    await until(() => states.includes('unauthorized'));
    expect(connection.state).toBe('unauthorized');
  });

  it('send() says so while disconnected, or when a frame is over the limit, instead of queueing', async () => {
    connection = new Connection({ url: server.url, initialDelayMs: 10 });
    expect(connection.send({ type: 'cancel', ideaId: IDEA })).toBe('offline');
    await server.nextSocket();
    await until(() => connection?.state === 'open');
    expect(connection.send({ type: 'cancel', ideaId: IDEA })).toBe('sent');
    // 90,000 three-byte characters: under the message's character limit, over the frame's 256 KiB.
    expect(connection.send({ type: 'chat', ideaId: IDEA, message: '語'.repeat(90_000) })).toBe('too_large');
    await until(() => server.frames.length === 1);
    expect(server.frames).toEqual([{ type: 'cancel', ideaId: IDEA }]);
  });

  it('passes on only the answer to the latest subscribe, and retries a refused one', async () => {
    const subscribedSeqs: number[] = [];
    const errors: string[] = [];
    const first = server.nextSocket();
    connection = new Connection({ url: server.url, initialDelayMs: 10 });
    connection.subscribe({
      ideaId: IDEA,
      lastSeq: () => 0,
      onFrames: () => undefined,
      onSubscribed: (frame) => subscribedSeqs.push(frame.lastSeq),
      onError: (frame) => errors.push(frame.code),
      onDisconnected: () => undefined,
    });
    const socket = await first;
    await until(() => server.frames.length === 1);
    const firstId = (server.frames[0] as { requestId: string }).requestId;
    socket.send(
      JSON.stringify({ type: 'subscribed', ideaId: IDEA, lastSeq: 7, running: false, requestId: 'old-1' }),
    );
    socket.send(
      JSON.stringify({
        type: 'error',
        code: 'HOST_UNAVAILABLE',
        message: 'down',
        ideaId: IDEA,
        requestId: firstId,
      }),
    );
    await until(() => errors.length === 1);
    expect(subscribedSeqs).toEqual([]);
    await until(() => server.frames.length === 2); // the retry, after its backoff
    const retryId = (server.frames[1] as { requestId: string }).requestId;
    expect(retryId).not.toBe(firstId);
    socket.send(
      JSON.stringify({ type: 'subscribed', ideaId: IDEA, lastSeq: 9, running: true, requestId: retryId }),
    );
    await until(() => subscribedSeqs.length === 1);
    expect(subscribedSeqs).toEqual([9]);
  });
});
