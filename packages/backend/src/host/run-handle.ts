import { CatalystError } from '../core/catalyst-error.ts';
import {
  createStreamStripper,
  outcomeFromTrailer,
  outcomeWithoutMarker,
  type StreamStripper,
} from '../core/run-markers.ts';
import { pumpStream, type ChunkQueue } from './chunk-queue.ts';
import type { RunHandle, RunOutcome, RunSpec } from './host.ts';
import type { RawChannel, RawChannelEnd } from './raw-channel.ts';

/**
 * A RunHandle over a channel that runs the wrapper script (run-wrapper.ts). Speaks the wrapper's stdin protocol:
 * `{…` lines for the job, `h` heartbeats every lease/3, `c` to stop, `e` to end the job's input, `i` to SIGINT
 * the job. Reads its markers off stdout and stderr (run-markers.ts) and settles `outcome` once, from the trailer.
 */

/** A run's limits with their defaults applied (wrapped-run.ts resolveRunLimits). */
export interface ResolvedRunLimits {
  leaseMs: number;
  graceMs: number;
  maxRuntimeMs: number;
}

export interface RunHandleOptions {
  channel: RawChannel;
  runTag: string;
  spec: RunSpec;
  limits: ResolvedRunLimits;
  killRun?: (runTag: string) => Promise<void>;
}

/** After cancel(), how long past the grace period the run may take before it is stopped from outside. */
const CANCEL_SLACK_MS = 10_000;
const STDERR_TAIL_CHARS = 2_000;

export function createRunHandle(options: RunHandleOptions): RunHandle {
  return new WrappedRunHandle(options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class WrappedRunHandle implements RunHandle {
  readonly runTag: string;
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  readonly outcome: Promise<RunOutcome>;
  readonly #options: RunHandleOptions;
  readonly #strippers: { stdout: StreamStripper; stderr: StreamStripper };
  readonly #queues: ChunkQueue[];
  readonly #pumped: Promise<unknown>;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #decoder = new TextDecoder();
  #stderrTail = '';
  #cancelDeadline: NodeJS.Timeout | undefined;
  #isInputEnded = false;
  #isCancelRequested = false;
  #isStoppingFromOutside = false;
  #isAbandoned = false;
  #isSettled = false;

  constructor(options: RunHandleOptions) {
    this.#options = options;
    this.runTag = options.runTag;
    const { channel } = options;
    // A broken pipe surfaces through the write callbacks and the channel's end; without a listener it would crash.
    channel.stdin.on('error', () => undefined);
    this.#strippers = {
      stdout: createStreamStripper({ tag: options.runTag, stream: 'stdout' }),
      stderr: createStreamStripper({ tag: options.runTag, stream: 'stderr' }),
    };
    const out = pumpStream(channel.stdout, this.#strippers.stdout);
    const err = pumpStream(channel.stderr, this.#strippers.stderr, (bytes) => {
      this.#stderrTail = (this.#stderrTail + this.#decoder.decode(bytes, { stream: true })).slice(
        -STDERR_TAIL_CHARS,
      );
    });
    this.stdout = out.queue.iterable;
    this.stderr = err.queue.iterable;
    this.#queues = [out.queue, err.queue];
    this.#pumped = Promise.all([out.done, err.done]);
    this.#heartbeat = setInterval(() => {
      // A failed heartbeat means the channel is going away; its end is what reports that.
      this.#write('h\n').catch(() => undefined);
    }, options.limits.leaseMs / 3);
    this.#heartbeat.unref();
    this.outcome = this.#settle();
  }

  writeLine(line: string): Promise<void> {
    if (!line.startsWith('{') || /[\n\0]/.test(line)) {
      return Promise.reject(
        new CatalystError(
          'INVALID_ARGUMENT',
          'a run input line must be one JSON object: start with { and hold no newline',
        ),
      );
    }
    if (this.#isInputEnded || this.#isSettled) {
      return Promise.reject(new CatalystError('RUN_INPUT_CLOSED', "the run's input is already closed"));
    }
    return this.#write(`${line}\n`);
  }

  endInput(): Promise<void> {
    if (this.#isInputEnded || this.#isSettled) return Promise.resolve();
    this.#isInputEnded = true;
    return this.#write('e\n');
  }

  interrupt(): void {
    if (this.#isSettled) return;
    // Not gated on endInput(): the watchdog reads control lines after `e`. A channel that cannot carry `i` has no
    // other way to the job's pid; the caller escalates to cancel(), whose fallback stops the run from outside.
    this.#write('i\n').catch(() => undefined);
  }

  cancel(): void {
    if (this.#isCancelRequested || this.#isSettled) return;
    this.#isCancelRequested = true;
    this.#cancelDeadline = setTimeout(() => {
      this.#stopFromOutside();
      this.#options.channel.destroy();
    }, this.#options.limits.graceMs + CANCEL_SLACK_MS);
    this.#cancelDeadline.unref();
    this.#write('c\n').catch(() => {
      this.#stopFromOutside();
    });
  }

  abandon(): void {
    if (this.#isSettled) return;
    this.#isAbandoned = true;
    clearInterval(this.#heartbeat);
    this.#options.channel.destroy();
  }

  /** The channel cannot carry `c`: the kill script over another channel, else closing ours (the wrapper's EOF). */
  #stopFromOutside(): void {
    if (this.#isStoppingFromOutside) return;
    this.#isStoppingFromOutside = true;
    const { killRun, channel } = this.#options;
    if (killRun === undefined) {
      channel.destroy();
      return;
    }
    killRun(this.runTag).catch(() => {
      channel.destroy();
    });
  }

  #write(text: string): Promise<void> {
    const { stdin } = this.#options.channel;
    if (!stdin.writable) {
      return Promise.reject(
        new CatalystError('CONNECTION_LOST', "the run's channel no longer accepts input"),
      );
    }
    return new Promise((resolve, reject) => {
      stdin.write(text, (error) => {
        if (error)
          reject(new CatalystError('CONNECTION_LOST', `writing to the run failed: ${error.message}`));
        else resolve();
      });
    });
  }

  async #settle(): Promise<RunOutcome> {
    let end: RawChannelEnd;
    try {
      end = await this.#options.channel.ended;
      if (end.kind === 'exited') await this.#pumped;
    } catch (error) {
      end = { kind: 'lost', message: messageOf(error) };
    }
    this.#isSettled = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#cancelDeadline);
    for (const queue of this.#queues) queue.end();
    return end.kind === 'lost' ? { kind: 'connection_lost', message: end.message } : this.#interpret(end);
  }

  #interpret(end: Extract<RawChannelEnd, { kind: 'exited' }>): RunOutcome {
    const { stdout, stderr } = this.#strippers;
    const { spec } = this.#options;
    if (stderr.trailer !== undefined) {
      const context = { argv0: spec.argv[0] ?? '', cwd: spec.cwd, stderrTail: this.#stderrTail };
      return outcomeFromTrailer(stderr.trailer, context);
    }
    if (this.#isAbandoned)
      return { kind: 'connection_lost', message: 'the channel was closed before the run ended' };
    if (!stdout.hasStarted && !stderr.hasStarted) {
      return outcomeWithoutMarker(end, `${stderr.preamble()}\n${stdout.preamble()}`);
    }
    // The wrapper died without its trailer (killed from outside, or its channel torn down by cancel's fallback).
    if (this.#isCancelRequested) return { kind: 'cancelled' };
    return { kind: 'exited', code: end.code, signal: end.signal };
  }
}
