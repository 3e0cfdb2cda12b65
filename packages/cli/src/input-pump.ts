import type { Readable } from 'node:stream';

/**
 * `catalyst shell`'s input (stdin) to the terminal's WebSocket, at the pace the socket takes it: reading pauses
 * while more than HIGH_WATER_BYTES wait to be sent, or while the socket is away (a drop), and resumes once the
 * socket is back and below LOW_WATER_BYTES. So `catalyst shell x < big.sql` holds at most about a megabyte in
 * memory, and what is typed while the connection is lost waits in the terminal (or the pipe) instead of being read
 * and dropped: nothing is read that cannot be sent.
 */
export const HIGH_WATER_BYTES = 1024 * 1024;
export const LOW_WATER_BYTES = 256 * 1024;

export interface InputSink {
  /** Whether input can be sent now (the shell is live on an open socket). */
  isReady(): boolean;
  /** Bytes handed to the socket but not yet to the OS (ws's `bufferedAmount`). */
  bufferedBytes(): number;
  /** Sends the chunk; `onSent` once it is written out (or the socket failed). */
  send(chunk: Buffer, onSent: () => void): void;
  /** The input ended (a pipe's end). */
  end(): void;
}

export interface InputPump {
  /** Re-checks the sink (its readiness changed): pauses or resumes reading. */
  update(): void;
  stop(): void;
}

export function startInputPump(input: Readable, sink: InputSink): InputPump {
  let isPaused = false;
  const update = (): void => {
    const buffered = sink.bufferedBytes();
    if (!sink.isReady() || buffered > HIGH_WATER_BYTES) {
      if (!isPaused) input.pause();
      isPaused = true;
    } else if (isPaused && buffered <= LOW_WATER_BYTES) {
      isPaused = false;
      input.resume();
    }
  };
  const onData = (chunk: Buffer | string): void => {
    sink.send(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8'), update);
    update();
  };
  const onEnd = (): void => {
    sink.end();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  // Adding a 'data' listener starts the flow; it starts for real only once the sink is ready.
  input.pause();
  isPaused = true;
  update();
  return {
    update,
    stop: () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
    },
  };
}
