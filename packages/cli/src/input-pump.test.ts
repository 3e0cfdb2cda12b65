import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HIGH_WATER_BYTES, startInputPump, type InputSink } from './input-pump.ts';

const CHUNK_BYTES = 64 * 1024;

/** A socket stand-in that holds what was sent until `drain` writes it out, as a slow network would. */
function createSlowSink() {
  const inFlight: { chunk: Buffer; onSent: () => void }[] = [];
  const delivered: Buffer[] = [];
  let isReady = true;
  let hasEnded = false;
  let mostBuffered = 0;
  const buffered = () => inFlight.reduce((sum, item) => sum + item.chunk.length, 0);
  const sink: InputSink = {
    isReady: () => isReady,
    bufferedBytes: buffered,
    send: (chunk, onSent) => {
      inFlight.push({ chunk, onSent });
      mostBuffered = Math.max(mostBuffered, buffered());
    },
    end: () => {
      hasEnded = true;
    },
  };
  return {
    sink,
    delivered,
    setReady: (value: boolean) => {
      isReady = value;
    },
    drain: () => {
      for (let item = inFlight.shift(); item !== undefined; item = inFlight.shift()) {
        delivered.push(item.chunk);
        item.onSent();
      }
    },
    mostBuffered: () => mostBuffered,
    hasEnded: () => hasEnded,
  };
}

/** 16 MiB in numbered chunks, made as they are read: how much was read shows in `readBytes`. */
function createBigInput() {
  let index = 0;
  const counter = { readBytes: 0 };
  const stream = new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      if (index === 256) {
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(CHUNK_BYTES, index % 251);
      index += 1;
      counter.readBytes += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, counter };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('startInputPump', () => {
  it('reads no further than about HIGH_WATER_BYTES ahead of what the socket wrote out, and delivers all in order', async () => {
    const { stream, counter } = createBigInput();
    const slow = createSlowSink();
    startInputPump(stream, slow.sink);
    while (!slow.hasEnded()) {
      await nextTurn();
      const sentBytes = slow.delivered.reduce((sum, chunk) => sum + chunk.length, 0);
      // What was read but not written out: in flight, plus the stream's own read-ahead (a chunk or two).
      expect(counter.readBytes - sentBytes).toBeLessThanOrEqual(HIGH_WATER_BYTES + 3 * CHUNK_BYTES);
      slow.drain();
    }
    expect(slow.mostBuffered()).toBeLessThanOrEqual(HIGH_WATER_BYTES + CHUNK_BYTES);
    const all = Buffer.concat(slow.delivered);
    expect(all.length).toBe(256 * CHUNK_BYTES);
    for (let index = 0; index < 256; index += 1) expect(all[index * CHUNK_BYTES]).toBe(index % 251);
  });

  it('reads nothing while the socket is away, and goes on when it is back', async () => {
    const { stream } = createBigInput();
    const slow = createSlowSink();
    slow.setReady(false);
    const pump = startInputPump(stream, slow.sink);
    for (let turn = 0; turn < 5; turn += 1) await nextTurn();
    expect(slow.delivered).toEqual([]);
    expect(slow.mostBuffered()).toBe(0);
    slow.setReady(true);
    pump.update();
    while (!slow.hasEnded()) {
      await nextTurn();
      slow.drain();
    }
    expect(Buffer.concat(slow.delivered).length).toBe(256 * CHUNK_BYTES);
  });
});
