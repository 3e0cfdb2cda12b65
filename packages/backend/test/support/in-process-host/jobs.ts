/**
 * The jobs of the in-process host (in-process-host.ts): what a process on a VM is to Catalyst (bytes out on two
 * streams, lines in, a signal, an end with a code and a reason), held in memory. A job's behaviour (the scripted
 * claude, a local command) sees only JobOutput; Catalyst's side (runs, session attachments) reads the job's output
 * from any byte offset, as the VM's session files are read, so a job outlives every reader.
 */

export interface JobOutput {
  out(data: string | Uint8Array): void;
  err(data: string | Uint8Array): void;
  /** The job is over; what it writes after is dropped. `reason` as the session supervisor's (`exit`, `cancel`, …). */
  exit(code: number, reason?: string): void;
}

export interface JobBehaviour {
  /** One line of its stdin (without the newline). */
  line(text: string): void;
  endInput(): void;
  /** SIGINT to its main process. */
  interrupt(): void;
  /**
   * It is being stopped: whatever it holds is let go. True when it reports its own end once its processes are gone
   * (as the wrapper reports a stop only then); otherwise the job is over at once.
   */
  stop(): boolean;
}

/** The behaviour of a job that ended as it started (`--version`, a missing folder): it takes nothing more. */
export const FINISHED: JobBehaviour = {
  line: () => undefined,
  endInput: () => undefined,
  interrupt: () => undefined,
  stop: () => false,
};

/** How a job ended: its exit code and the supervisor's reason (`exit`, `cancel`, `idle`, …). */
export interface JobStatus {
  code: number;
  reason: string;
}

export interface JobSpec {
  tag: string;
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/** Makes the behaviour of a job; undefined when the in-process host has no such program (`CLI_NOT_FOUND`). */
export type JobFactory = (spec: JobSpec, output: JobOutput) => JobBehaviour | undefined;

type Stream = 'out' | 'err';

/** The exit code of a job stopped with TERM, as a shell reports it. */
const TERMINATED = 143;

export class Job {
  readonly spec: JobSpec;
  status: JobStatus | undefined;
  /** Settles once with how it ended. */
  readonly ended: Promise<JobStatus>;
  #markEnded: (status: JobStatus) => void = () => undefined;
  /** Each stream's chunks, each with the offset it starts at. */
  #chunks: Record<Stream, { at: number; data: Buffer }[]> = { out: [], err: [] };
  #bytes: Record<Stream, number> = { out: 0, err: 0 };
  #behaviour: JobBehaviour | undefined;
  #changed: (() => void)[] = [];
  #isInputOpen = true;
  #claimed: string | undefined;

  constructor(spec: JobSpec, factory: JobFactory) {
    this.spec = spec;
    this.ended = new Promise((resolve) => (this.#markEnded = resolve));
    const output: JobOutput = {
      out: (data) => {
        this.#write('out', data);
      },
      err: (data) => {
        this.#write('err', data);
      },
      exit: (code, reason) => {
        this.#end(code, reason ?? 'exit');
      },
    };
    this.#behaviour = factory(spec, output);
    if (this.#behaviour === undefined) this.#end(127, 'not_found');
  }

  get isAlive(): boolean {
    return this.status === undefined;
  }

  get acceptsInput(): boolean {
    return this.isAlive && this.#isInputOpen;
  }

  /** The reason its end will have whatever it exits with (a limit that closed its input first). */
  claim(reason: string): void {
    this.#claimed ??= reason;
  }

  bytes(stream: Stream): number {
    return this.#bytes[stream];
  }

  /** Settles at the job's next output or end. */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.#changed.push(resolve));
  }

  /** The bytes of `stream` from `offset` to what has been written so far. */
  read(stream: Stream, offset: number): Buffer {
    const after = this.#chunks[stream].filter(({ at, data }) => at + data.length > offset);
    const first = after[0];
    if (first === undefined) return Buffer.alloc(0);
    return Buffer.concat(after.map(({ data }) => data)).subarray(offset - first.at);
  }

  line(text: string): void {
    if (this.isAlive && this.#isInputOpen) this.#behaviour?.line(text);
  }

  endInput(): void {
    if (!this.isAlive || !this.#isInputOpen) return;
    this.#isInputOpen = false;
    this.#behaviour?.endInput();
  }

  interrupt(): void {
    if (this.isAlive) this.#behaviour?.interrupt();
  }

  /**
   * TERM to all it started, with `reason` (`cancel` unless a limit stopped it): over at once, or once its processes
   * have exited when its behaviour says it will report that (JobBehaviour.stop).
   */
  stop(reason = 'cancel'): void {
    if (!this.isAlive) return;
    this.claim(reason);
    if (this.#behaviour?.stop() !== true) this.#end(TERMINATED, reason);
  }

  #write(stream: Stream, data: string | Uint8Array): void {
    if (!this.isAlive) return;
    const chunk = Buffer.from(data);
    if (chunk.length === 0) return;
    this.#chunks[stream].push({ at: this.#bytes[stream], data: chunk });
    this.#bytes[stream] += chunk.length;
    this.#notify();
  }

  #end(code: number, reason: string): void {
    if (!this.isAlive) return;
    this.status = { code, reason: this.#claimed ?? reason };
    this.#isInputOpen = false;
    this.#notify();
    this.#markEnded(this.status);
  }

  #notify(): void {
    for (const resolve of this.#changed.splice(0)) resolve();
  }
}

/**
 * The bytes of one of a job's streams from `offset`, as they are written, until the job is over and all is read or
 * `isDone()` says the reader let go.
 */
export async function* follow(
  job: Job,
  stream: Stream,
  offset: number,
  isDone: () => boolean,
  letGo: Promise<void>,
): AsyncGenerator<Uint8Array> {
  let at = offset;
  for (;;) {
    if (isDone()) return;
    const change = job.nextChange();
    if (job.bytes(stream) > at) {
      const chunk = job.read(stream, at);
      at += chunk.length;
      yield chunk;
      continue;
    }
    if (!job.isAlive) return;
    await Promise.race([change, letGo]);
  }
}
