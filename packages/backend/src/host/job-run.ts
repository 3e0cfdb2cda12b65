import { CatalystError } from '../core/catalyst-error.ts';
import type { JobLimits } from '../core/vm-job-shell.ts';
import { createChunkQueue, type ChunkQueue } from './chunk-queue.ts';
import { createFollowerId } from './job-follower.ts';
import type { RunHandle, RunOutcome, RunSpec } from './host.ts';
import type { AttachmentEnd, JobAttachment, VmJobs } from './vm-jobs.ts';
import { createRunTag, resolveRunLimits } from './wrapped-run.ts';

/**
 * A run whose process lives in a session on the host (vm-jobs.ts, issue 11) instead of in its channel: a
 * RunHandle like the wrapper's, but a lost connection only detaches it. The handle re-attaches with backoff (1 s
 * doubling to 30 s, ±20 %, while the host cannot be reached; 1 s again after each answer, a SESSION_BUSY refusal
 * too, so a holder about to go stale is never waited out doubled) from the byte offsets it has delivered, so the
 * consumer reads every byte once, in order, as if nothing happened; input and control lines given meanwhile are
 * kept and sent on re-attach. The session's own limits stop it on the host when Catalyst does not come back (the
 * lease here is the detached limit).
 */

/**
 * A run in a session: a RunHandle that can also say whether a turn is running. Between turns the session is warm
 * (idle): its own idle limit applies, not the detached one (vm-job-shell.ts).
 */
export interface JobRun extends RunHandle {
  setTurn(isRunning: boolean): void;
  /** `abandon`, after a stop that did not arrive: told to stop once more, on a channel of its own. */
  abandonStopping(): void;
}

export type ConnectionEvent = { state: 'detached'; reason: string } | { state: 'attached' };

export interface JobRunOptions {
  jobs: VmJobs;
  /** A fixed tag (tests); otherwise a random one. It is the session's id too. */
  tag?: string;
  /** Told when the run loses its attachment and when it has it again. */
  onConnection?: (event: ConnectionEvent) => void;
  reconnect?: { firstDelayMs: number; maxDelayMs: number };
}

const QUEUE_HIGH_WATER_BYTES = 1024 * 1024;
const DEFAULT_RECONNECT = { firstDelayMs: 1_000, maxDelayMs: 30_000 };

function sessionLimitsOf(spec: RunSpec): JobLimits {
  const limits = resolveRunLimits(spec.limits);
  const leaseSeconds = limits.leaseMs / 1000;
  const maxLifetimeSeconds = limits.maxRuntimeMs / 1000;
  const detachedMs = spec.limits?.detachedMs ?? limits.leaseMs;
  if (!Number.isFinite(detachedMs) || detachedMs <= 0) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      'limits.detachedMs must be a positive number of milliseconds',
    );
  }
  // Between turns the idle limit applies (none without one); while a turn runs, the detached limit.
  return {
    warmIdleSeconds: (spec.limits?.warmIdleMs ?? limits.maxRuntimeMs) / 1000,
    leaseSeconds,
    detachedSeconds: detachedMs / 1000,
    maxLifetimeSeconds,
    graceSeconds: limits.graceMs / 1000,
  };
}

/** Rejects when the session cannot be started at all (the host unreachable, the session dir refused). */
export async function startJobRun(spec: RunSpec, options: JobRunOptions): Promise<JobRun> {
  const runTag = options.tag ?? createRunTag();
  const limits = sessionLimitsOf(spec);
  const heartbeatMs = heartbeatOf(limits);
  const follower = createFollowerId();
  // The attachment's channel first, then the session: on a busy host the run waits here for a channel, before
  // its session exists, instead of a session waiting unfollowed past its lease (issue 25, item 4).
  const first = await options.jobs.attach(
    runTag,
    { stdout: 0, stderr: 0 },
    { heartbeatMs, awaitStart: true, follower },
  );
  try {
    await options.jobs.start({
      sessionId: runTag,
      argv: spec.argv,
      cwd: spec.cwd,
      ...(spec.env === undefined ? {} : { env: spec.env }),
      limits,
    });
  } catch (error) {
    first.detach();
    throw error;
  }
  return new JobRunHandle(
    runTag,
    { ...options, spec, follower },
    heartbeatMs,
    { stdout: 0, stderr: 0 },
    first,
  );
}

/**
 * A run in a session that already exists (a restarted Catalyst takes up the run an earlier one left, issue 11),
 * read from the given byte offsets. `spec` is the one the session was started with (its words for the outcome).
 */
export function attachJobRun(
  sessionId: string,
  from: { stdout: number; stderr: number },
  spec: RunSpec,
  options: JobRunOptions,
): JobRun {
  return new JobRunHandle(
    sessionId,
    { ...options, spec, follower: createFollowerId() },
    heartbeatOf(sessionLimitsOf(spec)),
    from,
  );
}

function heartbeatOf(limits: JobLimits): number {
  return Math.max(200, Math.min(5_000, (limits.leaseSeconds * 1000) / 3));
}

/**
 * `follower`: the same for each of the handle's attachments (job-follower.ts). The next is opened only once the
 * last has ended here, so when the VM still holds that one (it never heard the connection go), it is taken over at
 * once instead of refused until its heartbeat is stale (issue 39).
 */
type HandleOptions = JobRunOptions & { spec: RunSpec; follower: string };

class JobRunHandle implements JobRun {
  readonly runTag: string;
  readonly outcome: Promise<RunOutcome>;
  readonly #options: HandleOptions;
  readonly #heartbeatMs: number;
  readonly #stdout: ChunkQueue;
  readonly #stderr: ChunkQueue;
  readonly #offsets: { stdout: number; stderr: number };
  /** Lines and control letters for the session, sent on the next attachment when there is none now. */
  readonly #waiting: { kind: 'line' | 'control'; value: string }[] = [];
  #attachment: JobAttachment | undefined;
  #isInputEnded = false;
  #isTurnRunning = true;
  #isAbandoned = false;
  #isOver = false;
  #resumes: { stdout?: () => void; stderr?: () => void } = {};
  /** The attachment opened before the session was started (startJobRun), used first. */
  #first: JobAttachment | undefined;

  constructor(
    runTag: string,
    options: HandleOptions,
    heartbeatMs: number,
    from: { stdout: number; stderr: number },
    first?: JobAttachment,
  ) {
    this.runTag = runTag;
    this.#first = first;
    this.#offsets = { ...from };
    this.#options = options;
    this.#heartbeatMs = heartbeatMs;
    this.#stdout = createChunkQueue({
      highWaterBytes: QUEUE_HIGH_WATER_BYTES,
      onResume: () => this.#resumes.stdout?.(),
    });
    this.#stderr = createChunkQueue({
      highWaterBytes: QUEUE_HIGH_WATER_BYTES,
      onResume: () => this.#resumes.stderr?.(),
    });
    this.outcome = this.#follow().finally(() => {
      this.#isOver = true;
      this.#stdout.end();
      this.#stderr.end();
      // Everything the session wrote was read (the queues hold the rest): its files are no longer needed. A
      // session let go (abandon) keeps them, and its own limits end it.
      if (!this.#isAbandoned) void options.jobs.remove(runTag).catch(() => undefined);
    });
    this.outcome.catch(() => undefined);
  }

  get stdout(): AsyncIterable<Uint8Array> {
    return this.#stdout.iterable;
  }

  get stderr(): AsyncIterable<Uint8Array> {
    return this.#stderr.iterable;
  }

  writeLine(line: string): Promise<void> {
    if (!line.startsWith('{') || line.includes('\n')) {
      return Promise.reject(
        new CatalystError('INVALID_ARGUMENT', 'a run input line must be one JSON object'),
      );
    }
    if (this.#isInputEnded || this.#isOver) {
      return Promise.reject(new CatalystError('RUN_INPUT_CLOSED', 'the run no longer takes input'));
    }
    this.#send('line', line);
    return Promise.resolve();
  }

  endInput(): Promise<void> {
    if (!this.#isInputEnded && !this.#isOver) {
      this.#isInputEnded = true;
      this.#send('control', 'e');
    }
    return Promise.resolve();
  }

  interrupt(): void {
    // A SIGINT that waits for a re-attach would arrive at the wrong moment; the lifecycle escalates to cancel.
    if (!this.#isOver) this.#attachment?.interrupt();
  }

  cancel(): void {
    if (this.#isOver) return;
    this.#send('control', 'c');
    // Also from outside, on any channel: the attachment may be gone, or stuck behind a frozen connection.
    if (this.#attachment === undefined) void this.#options.jobs.stop(this.runTag).catch(() => undefined);
  }

  setTurn(isRunning: boolean): void {
    this.#isTurnRunning = isRunning;
    this.#attachment?.markTurn(isRunning);
  }

  abandon(): void {
    this.#isAbandoned = true;
    this.#attachment?.detach();
    this.#first?.detach();
  }

  /**
   * Let go of after a stop that did not arrive (its attachment's channel was lost while still set): told to stop once
   * more, on a channel of its own; if that is lost too, the session's own limits end it on the host.
   */
  abandonStopping(): void {
    this.abandon();
    if (!this.#isOver) void this.#options.jobs.stop(this.runTag).catch(() => undefined);
  }

  #send(kind: 'line' | 'control', value: string): void {
    const attachment = this.#attachment;
    if (attachment === undefined) {
      this.#waiting.push({ kind, value });
      return;
    }
    deliver(attachment, kind, value);
  }

  /** Attachment after attachment until the session ends (or Catalyst lets it go). */
  async #follow(): Promise<RunOutcome> {
    let delayMs = (this.#options.reconnect ?? DEFAULT_RECONNECT).firstDelayMs;
    let isFirst = true;
    for (;;) {
      // Let go while no attachment was held (between two attempts): nothing more is read.
      if (this.#isLetGo()) return { kind: 'connection_lost', message: 'Catalyst let the run go' };
      let attachment: JobAttachment | undefined = this.#first;
      const isOpenedBeforeStart = attachment !== undefined;
      this.#first = undefined;
      if (attachment === undefined) {
        try {
          attachment = await this.#options.jobs.attach(
            this.runTag,
            { ...this.#offsets },
            { heartbeatMs: this.#heartbeatMs, follower: this.#options.follower },
          );
        } catch (error) {
          if (isFirst) return { kind: 'start_failed', code: 'SSH_CONNECT_FAILED', message: messageOf(error) };
          if (this.#options.jobs.isClosed) return { kind: 'connection_lost', message: messageOf(error) };
        }
      }
      if (attachment !== undefined) {
        const end = await this.#use(attachment, isFirst);
        // Opened before the start, it gave up waiting for a start that took longer (on a busy host its control
        // channel waits too): the session is there now, so attach again at once.
        if (isOpenedBeforeStart && end.kind === 'refused' && end.code === 'SESSION_GONE') continue;
        const outcome = outcomeOf(end, this.#options.spec);
        if (outcome !== undefined) return outcome;
        if (this.#isLetGo()) return { kind: 'connection_lost', message: 'Catalyst let the run go' };
        if (end.kind === 'detached') this.#options.onConnection?.({ state: 'detached', reason: end.message });
        delayMs = (this.#options.reconnect ?? DEFAULT_RECONNECT).firstDelayMs;
      }
      isFirst = false;
      await sleep(jitter(delayMs));
      delayMs = Math.min(delayMs * 2, (this.#options.reconnect ?? DEFAULT_RECONNECT).maxDelayMs);
    }
  }

  /** Catalyst let the run go (abandon) or the host (close): the session goes on without it. */
  #isLetGo(): boolean {
    return this.#isAbandoned || this.#options.jobs.isClosed;
  }

  /** One attachment: what waited goes first, then its output is pumped until it ends. */
  async #use(attachment: JobAttachment, isFirst: boolean): Promise<AttachmentEnd> {
    // Nothing is sent to an attach script that was refused (another still holds the session) or failed.
    if (!(await attachment.ready)) return attachment.ended;
    if (this.#isAbandoned) attachment.detach();
    this.#attachment = attachment;
    attachment.markTurn(this.#isTurnRunning);
    for (const item of this.#waiting.splice(0)) deliver(attachment, item.kind, item.value);
    if (!isFirst) this.#options.onConnection?.({ state: 'attached' });
    await Promise.all([
      this.#pump(attachment.stdout, this.#stdout, 'stdout'),
      this.#pump(attachment.stderr, this.#stderr, 'stderr'),
    ]);
    const end = await attachment.ended;
    this.#attachment = undefined;
    return end;
  }

  async #pump(
    source: AsyncIterable<Uint8Array>,
    queue: ChunkQueue,
    which: 'stdout' | 'stderr',
  ): Promise<void> {
    for await (const chunk of source) {
      this.#offsets[which] += chunk.length;
      if (!queue.push(chunk)) {
        await new Promise<void>((resolve) => (this.#resumes[which] = resolve));
      }
    }
  }
}

function deliver(attachment: JobAttachment, kind: 'line' | 'control', value: string): void {
  if (kind === 'line') {
    attachment.writeLine(value);
    return;
  }
  if (value === 'e') attachment.endInput();
  else if (value === 'c') attachment.cancel();
}

/** How the session ended, as a run's outcome; undefined while it goes on (detached, or another attacher). */
function outcomeOf(end: AttachmentEnd, spec: RunSpec): RunOutcome | undefined {
  if (end.kind === 'refused') {
    if (end.code === 'SESSION_BUSY') return undefined;
    return { kind: 'connection_lost', message: 'The session is gone from the host (did the VM restart?).' };
  }
  if (end.kind === 'detached') return undefined;
  switch (end.reason) {
    case 'cancel':
      return { kind: 'cancelled' };
    case 'not_found':
      return {
        kind: 'start_failed',
        code: 'CLI_NOT_FOUND',
        message: `${spec.argv[0] ?? 'the command'} was not found on the host`,
      };
    case 'cwd':
      return {
        kind: 'start_failed',
        code: 'CWD_NOT_FOUND',
        message: `the working directory ${spec.cwd} does not exist on the host`,
      };
    case 'max_lifetime':
      return { kind: 'max_runtime' };
    case 'disk_full':
      return { kind: 'disk_full' };
    case 'detached_limit':
    case 'backend_gone':
      return { kind: 'lease_lost' };
    case 'vanished':
      return { kind: 'vanished' };
    default:
      return { kind: 'exited', code: end.code, signal: null };
  }
}

function jitter(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
