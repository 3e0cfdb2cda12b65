import { describe, expect, it, vi } from 'vitest';
import { createChunkQueue } from './chunk-queue.ts';

const bytes = (n: number) => new Uint8Array(n);

describe('createChunkQueue', () => {
  it('asks the source to pause above the high-water mark and to resume once the consumer caught up', async () => {
    const onResume = vi.fn();
    const queue = createChunkQueue({ highWaterBytes: 10, onResume });
    expect(queue.push(bytes(6))).toBe(true);
    expect(queue.push(bytes(6))).toBe(false);
    const iterator = queue.iterable[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toHaveLength(6);
    expect(onResume).toHaveBeenCalledOnce();
    queue.end();
    expect((await iterator.next()).value).toHaveLength(6);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('wakes a waiting consumer, and drops bytes once the consumer broke out of its loop', async () => {
    const onResume = vi.fn();
    const queue = createChunkQueue({ highWaterBytes: 10, onResume });
    const received: number[] = [];
    const reading = (async () => {
      for await (const chunk of queue.iterable) {
        received.push(chunk.length);
        break;
      }
    })();
    queue.push(bytes(3));
    await reading;
    expect(received).toEqual([3]);
    expect(onResume).toHaveBeenCalled();
    expect(queue.push(bytes(100))).toBe(true);
  });
});
