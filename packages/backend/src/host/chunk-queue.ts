import type { Readable } from 'node:stream';
import type { StreamStripper } from '../core/run-markers.ts';

/**
 * A single-consumer byte queue between a process's pipe and the run's consumer, with backpressure: the source is
 * paused while the consumer is more than `highWaterBytes` behind (STYLE.md: never buffer without bound). A consumer
 * that breaks out of its loop abandons the queue; from then on bytes are dropped so the process can still finish.
 */
export interface ChunkQueue {
  /** Queues a chunk; false when the consumer is behind and the source should pause until `onResume`. */
  push(chunk: Uint8Array): boolean;
  end(): void;
  readonly iterable: AsyncIterable<Uint8Array>;
}

export interface ChunkQueueOptions {
  highWaterBytes: number;
  onResume: () => void;
}

export function createChunkQueue(options: ChunkQueueOptions): ChunkQueue {
  return new BackpressuredQueue(options);
}

class BackpressuredQueue implements ChunkQueue {
  readonly iterable: AsyncIterable<Uint8Array>;
  readonly #options: ChunkQueueOptions;
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  #isEnded = false;
  #isAbandoned = false;
  #wake: (() => void) | undefined;

  constructor(options: ChunkQueueOptions) {
    this.#options = options;
    const iterator: AsyncIterableIterator<Uint8Array> = {
      next: () => this.#next(),
      return: () => this.#abandon(),
      [Symbol.asyncIterator]: () => iterator,
    };
    this.iterable = { [Symbol.asyncIterator]: () => iterator };
  }

  push(chunk: Uint8Array): boolean {
    if (this.#isAbandoned || this.#isEnded) return true;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    this.#notify();
    return this.#bytes < this.#options.highWaterBytes;
  }

  end(): void {
    this.#isEnded = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #next(): Promise<IteratorResult<Uint8Array, undefined>> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk !== undefined) {
        const wasFull = this.#bytes >= this.#options.highWaterBytes;
        this.#bytes -= chunk.length;
        if (wasFull && this.#bytes < this.#options.highWaterBytes) this.#options.onResume();
        return { done: false, value: chunk };
      }
      if (this.#isEnded || this.#isAbandoned) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #abandon(): Promise<IteratorResult<Uint8Array, undefined>> {
    this.#isAbandoned = true;
    this.#chunks.length = 0;
    this.#bytes = 0;
    this.#options.onResume();
    this.#notify();
    return Promise.resolve({ done: true, value: undefined });
  }
}

const HIGH_WATER_BYTES = 1024 * 1024;

/**
 * Feeds `source` through `stripper` into a new queue. `done` settles when the source has ended (or closed or
 * failed: a destroyed channel never emits 'end'), after the stripper's held-back tail was queued.
 */
export function pumpStream(
  source: Readable,
  stripper: StreamStripper,
  onBytes?: (bytes: Uint8Array) => void,
): { queue: ChunkQueue; done: Promise<void> } {
  const queue = createChunkQueue({ highWaterBytes: HIGH_WATER_BYTES, onResume: () => source.resume() });
  const forward = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    onBytes?.(bytes);
    if (!queue.push(bytes)) source.pause();
  };
  const done = new Promise<void>((resolve) => {
    let isFinished = false;
    const finish = (): void => {
      if (isFinished) return;
      isFinished = true;
      forward(stripper.end());
      queue.end();
      resolve();
    };
    source.on('data', (chunk: unknown) => {
      forward(stripper.push(typeof chunk === 'string' ? Buffer.from(chunk) : toBytes(chunk)));
    });
    source.once('end', finish);
    source.once('close', finish);
    source.once('error', finish);
  });
  return { queue, done };
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  throw new TypeError('a run stream yielded something other than bytes');
}
