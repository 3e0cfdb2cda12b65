import type { RelayEvent } from '@catalyst/protocol';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection } from './connection.ts';
import { startTestWsServer, type TestWsServer } from '../../test/support/test-ws-server.ts';
import { useIdeaStream } from './use-idea-stream.ts';

// One idea's stream through the page's real connection, against a real ws server that answers as the backend
// does (ws-subscriptions.ts): the replay first, then `subscribed`.

const IDEA = 'idea-0123456789abcdef';

function text(seq: number, words: string): RelayEvent {
  return {
    type: 'claude:text',
    ideaId: IDEA,
    runId: 'run-1',
    seq,
    ts: new Date(0).toISOString(),
    text: `${words} ${seq}`,
    messageId: `msg-${seq}`,
    parentToolUseId: null,
  };
}

/** The requestId of the page's nth frame, which must be a subscribe: the server's answer carries it back. */
function subscribeId(server: TestWsServer, index: number): string {
  const frame = server.frames[index];
  if (frame?.type !== 'subscribe' || frame.requestId === undefined)
    throw new Error(`frame ${index} is no subscribe`);
  return frame.requestId;
}

function seqsFrom(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}

describe('useIdeaStream', () => {
  let server: TestWsServer;
  let connection: Connection | undefined;
  beforeEach(async () => {
    server = await startTestWsServer();
  });
  afterEach(async () => {
    cleanup();
    connection?.close();
    await server.close();
  });

  it('on a reset keeps the replay it got in place of what it held: the history is sent once, not twice', async () => {
    const firstSocket = server.nextSocket();
    const page = new Connection({ url: server.url, initialDelayMs: 10 });
    connection = page;
    const { result } = renderHook(() => useIdeaStream(page, IDEA));
    const first = await firstSocket;
    await waitFor(() => {
      expect(server.frames).toHaveLength(1);
    });
    const before = seqsFrom(1, 50).map((seq) => text(seq, 'before the crash'));
    for (const event of before) first.send(JSON.stringify(event));
    const firstId = subscribeId(server, 0);
    first.send(
      JSON.stringify({ type: 'subscribed', ideaId: IDEA, lastSeq: 50, running: false, requestId: firstId }),
    );
    await waitFor(() => {
      expect(result.current.isLive).toBe(true);
    });
    expect(result.current.transcript.lastSeq).toBe(50);

    // The backend crashed and came back having lost seqs 4..50; its history now holds other events 1..3, which it
    // replays whole (the same seqs as events the page holds) before a `subscribed` that says `reset`.
    const secondSocket = server.nextSocket();
    first.terminate();
    const second = await secondSocket;
    await waitFor(() => {
      expect(server.frames).toHaveLength(2);
    });
    expect(server.frames[1]).toEqual({
      type: 'subscribe',
      ideaId: IDEA,
      sinceSeq: 50,
      requestId: expect.any(String) as string,
    });
    const after = seqsFrom(1, 3).map((seq) => text(seq, 'after the crash'));
    for (const event of after) second.send(JSON.stringify(event));
    second.send(
      JSON.stringify({
        type: 'subscribed',
        ideaId: IDEA,
        lastSeq: 3,
        running: false,
        requestId: subscribeId(server, 1),
        reset: true,
      }),
    );

    await waitFor(() => {
      expect(result.current.transcript.events).toEqual(after);
    });
    expect(result.current.isLive).toBe(true);
    expect(result.current.transcript.lastSeq).toBe(3);
    expect(result.current.subscribed).toMatchObject({ lastSeq: 3, running: false, reset: true });
    // Live events go on from the replay.
    const live = text(4, 'live');
    second.send(JSON.stringify(live));
    await waitFor(() => {
      expect(result.current.transcript.events).toEqual([...after, live]);
    });
    // One subscribe per socket: nothing asked for the history a second time.
    expect(server.frames.filter((frame) => frame.type === 'subscribe')).toHaveLength(2);
    expect(server.frames).toHaveLength(2);
  });

  it('is live after a replay whose newest event repeats one it holds (made again after a crash, new seq)', async () => {
    const firstSocket = server.nextSocket();
    const page = new Connection({ url: server.url, initialDelayMs: 10 });
    connection = page;
    const { result } = renderHook(() => useIdeaStream(page, IDEA));
    const first = await firstSocket;
    await waitFor(() => {
      expect(server.frames).toHaveLength(1);
    });
    const shown = { ...text(7, 'shown before the kill'), origin: { line: 3, part: 0 } };
    first.send(JSON.stringify(shown));
    first.send(
      JSON.stringify({
        type: 'subscribed',
        ideaId: IDEA,
        lastSeq: 7,
        running: true,
        requestId: subscribeId(server, 0),
      }),
    );
    await waitFor(() => {
      expect(result.current.isLive).toBe(true);
    });

    // The next Catalyst made the same event again (same run and origin) with a seq above its reservation.
    const secondSocket = server.nextSocket();
    first.terminate();
    const second = await secondSocket;
    await waitFor(() => {
      expect(server.frames).toHaveLength(2);
    });
    const again = { ...shown, seq: 10_007 };
    second.send(JSON.stringify(again));
    second.send(
      JSON.stringify({
        type: 'subscribed',
        ideaId: IDEA,
        lastSeq: 10_007,
        running: true,
        requestId: subscribeId(server, 1),
      }),
    );
    await waitFor(() => {
      expect(result.current.isLive).toBe(true);
    });
    expect(result.current.transcript.events).toEqual([shown]);
  });
});
