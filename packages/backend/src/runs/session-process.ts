import { createDenyResponse, type StreamEvent } from '@catalyst/protocol';
import { parseStream } from '../core/stream-parser.ts';
import { isCommandLifecycleLine } from './core/turn-of-message.ts';
import type { RunOutcome, RunSpec } from '../host/host.ts';
import { attachJobRun, startJobRun, type ConnectionEvent, type JobRun } from '../host/job-run.ts';
import type { VmJobs } from '../host/vm-jobs.ts';

/**
 * One claude process in its session on the host, read for as long as it lives, turn after turn (issue 11: warm
 * turns). Its stdout is parsed once, here; the turn being run binds a sink and gets the events, the stderr and, at
 * the end, the outcome. Between turns nothing is bound: what the CLI prints then belongs to no turn and is
 * dropped. A warm CLI prints nothing until its next message (claude-cli-protocol.md §7), except a turn of its own
 * (issue 39, 2.1.331: a background command of the last turn ended): that is idle output, which retires the process
 * (warm-sessions.ts), and a `can_use_tool` in it is denied at once, since nobody is there to answer and it would
 * hold the next message for ever.
 */

/** The deny of a `can_use_tool` asked between turns: what the model reads. */
export const IDLE_PERMISSION_MESSAGE =
  'Nobody is there to answer between the person’s messages: Catalyst allows no tool in a turn nobody sent.';

export interface TurnSink {
  event(event: StreamEvent): void;
  stderr(chunk: Uint8Array): void;
  /** The process is over (its output was all delivered first). */
  ended(outcome: RunOutcome): void;
  /** The connection to the session dropped, or is back (a turn bound while detached hears it at once). */
  connection(event: ConnectionEvent): void;
}

export class SessionProcess {
  /** Starts claude in a new session on the host (job-run.ts). Rejects when it cannot start at all. */
  static async start(spec: RunSpec, jobs: VmJobs, sessionId: string): Promise<SessionProcess> {
    const relay = SessionProcess.#relay();
    const run = await startJobRun(spec, { jobs, tag: sessionId, onConnection: relay.onConnection });
    return relay.to(new SessionProcess(run));
  }

  /** The process of a session an earlier Catalyst left, read from the given offsets. */
  static attach(
    spec: RunSpec,
    jobs: VmJobs,
    sessionId: string,
    from: { stdout: number; stderr: number },
  ): SessionProcess {
    const relay = SessionProcess.#relay();
    const run = attachJobRun(sessionId, from, spec, { jobs, onConnection: relay.onConnection });
    return relay.to(new SessionProcess(run, from));
  }

  /** The run's connection events, for the process made of it (which exists only once the run does). */
  static #relay(): {
    onConnection: (event: ConnectionEvent) => void;
    to: (process: SessionProcess) => SessionProcess;
  } {
    let target: SessionProcess | undefined;
    return {
      onConnection: (event) => {
        if (target !== undefined) target.#onConnection(event);
      },
      to: (process) => (target = process),
    };
  }

  readonly run: JobRun;
  readonly startedAt = Date.now();
  /** Resolves once the process is over and its output read; never rejects. */
  readonly over: Promise<RunOutcome>;
  #sink: TurnSink | undefined;
  #outcome: RunOutcome | undefined;
  #stdoutBytes: number;
  #stderrBytes: number;
  #detachedReason: string | undefined;
  #hasIdleOutput = false;
  #noteIdleOutput!: () => void;
  /** Resolves at the first line the CLI prints while no turn is bound (not its queue bookkeeping). */
  readonly idleOutput = new Promise<void>((resolve) => (this.#noteIdleOutput = resolve));

  /** `from`: the byte offsets the run's reading starts at (a run taken up after a restart starts past 0). */
  constructor(run: JobRun, from: { stdout: number; stderr: number } = { stdout: 0, stderr: 0 }) {
    this.run = run;
    this.#stdoutBytes = from.stdout;
    this.#stderrBytes = from.stderr;
    this.over = Promise.all([this.#readStdout(), this.#readStderr()])
      .then(() => run.outcome)
      .then((outcome) => {
        this.#outcome = outcome;
        this.#sink?.ended(outcome);
        return outcome;
      });
  }

  /** Whether the CLI printed while no turn was bound: a turn of its own, which no turn of Catalyst's reads. */
  get hasIdleOutput(): boolean {
    return this.#hasIdleOutput;
  }

  get isOver(): boolean {
    return this.#outcome !== undefined;
  }

  get sessionId(): string {
    return this.run.runTag;
  }

  /** Bytes of stdout read so far: between turns, where the next turn's output will begin. */
  get stdoutOffset(): number {
    return this.#stdoutBytes;
  }

  get stderrOffset(): number {
    return this.#stderrBytes;
  }

  /** A turn starts: it gets everything from here on, and the outcome if the process ends meanwhile. */
  bind(sink: TurnSink): void {
    this.#sink = sink;
    this.run.setTurn(true);
    if (this.#detachedReason !== undefined)
      sink.connection({ state: 'detached', reason: this.#detachedReason });
    if (this.#outcome !== undefined) sink.ended(this.#outcome);
  }

  /** The turn is over and the process stays, idle: the session's idle limit runs from here. */
  unbind(): void {
    this.#sink = undefined;
    if (this.#outcome === undefined) this.run.setTurn(false);
  }

  #onConnection(event: ConnectionEvent): void {
    this.#detachedReason = event.state === 'detached' ? event.reason : undefined;
    this.#sink?.connection(event);
  }

  async #readStdout(): Promise<void> {
    // A chunk is counted before its events are handed on: a turn bound after them starts past them.
    const counted = countBytes(this.run.stdout, (bytes) => (this.#stdoutBytes += bytes));
    for await (const event of parseStream(counted)) {
      if (this.#sink === undefined) this.#onIdle(event);
      else this.#sink.event(event);
    }
  }

  #onIdle(event: StreamEvent): void {
    if (event.kind === 'message' && isCommandLifecycleLine(event.message)) return;
    this.#hasIdleOutput = true;
    this.#noteIdleOutput();
    const message = event.kind === 'message' ? event.message : undefined;
    if (message?.type !== 'control_request' || message.request.subtype !== 'can_use_tool') return;
    const deny = createDenyResponse(message.request_id, IDLE_PERMISSION_MESSAGE);
    // Rejected only once the input is closed (the process retiring): the CLI then fails the request itself.
    this.run.writeLine(JSON.stringify(deny)).catch(() => undefined);
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.run.stderr) {
      this.#stderrBytes += chunk.length;
      this.#sink?.stderr(chunk);
    }
  }
}

async function* countBytes(
  chunks: AsyncIterable<Uint8Array>,
  count: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    count(chunk.length);
    yield chunk;
  }
}
