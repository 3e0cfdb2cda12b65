import type { RelayEvent } from '@catalyst/protocol';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection } from './connection.ts';
import { startTestWsServer, type TestWsServer } from './test-ws-server.ts';
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

  it('drops what it held and subscribes from 0 when the server answers a stale sinceSeq with reset', async () => {
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

    // The backend crashed and came back having lost seqs 4..50; its history now holds other events 1..3.
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
    const answer = (requestId: string, reset: boolean) => {
      for (const event of after) second.send(JSON.stringify(event));
      const flag = reset ? { reset: true } : {};
      second.send(
        JSON.stringify({ type: 'subscribed', ideaId: IDEA, lastSeq: 3, running: false, requestId, ...flag }),
      );
    };
    answer(subscribeId(server, 1), true);

    await waitFor(() => {
      expect(server.frames).toHaveLength(3);
    });
    expect(server.frames[2]).toEqual({
      type: 'subscribe',
      ideaId: IDEA,
      requestId: expect.any(String) as string,
    });
    answer(subscribeId(server, 2), false);

    await waitFor(() => {
      expect(result.current.isLive).toBe(true);
    });
    expect(result.current.transcript.events).toEqual(after);
    expect(result.current.transcript.lastSeq).toBe(3);
    expect(result.current.subscribed).toMatchObject({ lastSeq: 3, running: false });
    expect(server.frames).toHaveLength(3);
  });
});
