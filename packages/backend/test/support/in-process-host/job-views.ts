import { CatalystError } from '../../../src/core/catalyst-error.ts';
import type { RunHandle, RunOutcome } from '../../../src/host/host.ts';
import type {
  AttachmentEnd,
  AttachOptions,
  JobAttachment,
  VmJobInfo,
  VmJobs,
  VmJobSpec,
} from '../../../src/host/vm-jobs.ts';
import { follow, Job, type JobFactory, type JobStatus } from './jobs.ts';

/**
 * What Catalyst holds of the in-process host's jobs: a run's handle (Host.startRun) and the sessions that live on
 * the "VM" (Host.sessions), with the session supervisor's limits. The jobs themselves live in an InProcessVm, which
 * outlives every Catalyst a test starts on it, as a VM outlives a backend.
 */

interface Session {
  job: Job;
  spec: VmJobSpec;
  startedAt: number;
  /** The attachment that holds the session, with the follower it was opened for. */
  holder: { follower: string | undefined; detach(message: string): void } | undefined;
  /** When a backend was last heard from: now while one holds the session. */
  heardAt: number;
  isTurn: boolean;
  stateAt: number;
}

const LIMIT_POLL_MS = 100;
const AWAIT_START_MS = 40_000;

export class InProcessJobs {
  readonly #factory: JobFactory;
  readonly #sessions = new Map<string, Session>();
  readonly #runs = new Set<Job>();
  readonly #started = new Map<string, (() => void)[]>();
  /** Every job started on this VM, in order (a test counts the claude processes a flow took). */
  readonly all: Job[] = [];

  constructor(factory: JobFactory) {
    this.#factory = factory;
  }

  /** Every job that still runs (sessions and runs), for a test's checks. */
  get live(): Job[] {
    return [...[...this.#sessions.values()].map((session) => session.job), ...this.#runs].filter(
      (job) => job.isAlive,
    );
  }

  /** The sessions still kept on the VM (their files, alive or over and not yet removed). */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Stops what carries the tag (Host.killRun): a run, or a session and its job. */
  kill(tag: string): void {
    for (const job of this.live) if (job.spec.tag === tag) job.stop();
  }

  /** Stops everything (the VM goes away at the end of a test file). */
  stopAll(): void {
    for (const job of this.live) job.stop();
  }

  startRun(spec: {
    argv: readonly string[];
    cwd: string;
    env?: Readonly<Record<string, string>>;
  }): RunHandle {
    const runTag = `run-${Math.random().toString(36).slice(2, 12)}`;
    const job = new Job({ tag: runTag, argv: spec.argv, cwd: spec.cwd, env: spec.env ?? {} }, this.#factory);
    this.all.push(job);
    this.#runs.add(job);
    let isAbandoned = false;
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    const isDone = () => isAbandoned;
    const outcome = Promise.race([job.ended, released]).then((status): RunOutcome => {
      this.#runs.delete(job);
      if (isAbandoned || status === undefined)
        return { kind: 'connection_lost', message: 'Catalyst let the run go' };
      return outcomeOf(status, spec.argv[0]);
    });
    return {
      runTag,
      stdout: follow(job, 'out', 0, isDone, released),
      stderr: follow(job, 'err', 0, isDone, released),
      writeLine(line) {
        if (!line.startsWith('{') || line.includes('\n'))
          return Promise.reject(
            new CatalystError('INVALID_ARGUMENT', 'an input line must be one JSON object'),
          );
        if (!job.isAlive || !job.acceptsInput)
          return Promise.reject(new CatalystError('RUN_INPUT_CLOSED', 'the run’s input is closed'));
        job.line(line);
        return Promise.resolve();
      },
      endInput() {
        job.endInput();
        return Promise.resolve();
      },
      interrupt: () => {
        job.interrupt();
      },
      cancel() {
        job.stop();
      },
      abandon() {
        isAbandoned = true;
        job.endInput();
        letGo();
      },
      outcome,
    };
  }

  vmJobs(): VmJobs {
    let isClosed = false;
    const attachments = new Set<JobAttachment>();
    return {
      start: (spec) => {
        this.#start(spec);
        return Promise.resolve();
      },
      attach: (sessionId, offsets, options = {}) => {
        if (isClosed)
          return Promise.reject(new CatalystError('CONNECTION_LOST', 'Catalyst has let go of this host'));
        const attachment =
          options.awaitStart === true && !this.#sessions.has(sessionId)
            ? later(this.#startOf(sessionId).then(() => this.#attach(sessionId, offsets, options)))
            : this.#attach(sessionId, offsets, options);
        attachments.add(attachment);
        void attachment.ended.then(() => attachments.delete(attachment));
        return Promise.resolve(attachment);
      },
      list: () => Promise.resolve([...this.#sessions.entries()].map(([id, session]) => infoOf(id, session))),
      stop: (sessionId) => {
        this.#sessions.get(sessionId)?.job.stop();
        return Promise.resolve();
      },
      remove: (sessionId) => {
        const session = this.#sessions.get(sessionId);
        if (session?.job.isAlive === true)
          return Promise.reject(new CatalystError('SESSION_BUSY', `session ${sessionId} is still running`));
        this.#sessions.delete(sessionId);
        return Promise.resolve();
      },
      close() {
        isClosed = true;
        for (const attachment of attachments) attachment.detach();
      },
      get isClosed() {
        return isClosed;
      },
    };
  }

  #start(spec: VmJobSpec): void {
    if (this.#sessions.has(spec.sessionId))
      throw new CatalystError('RUN_START_FAILED', `the session did not start: ${spec.sessionId} exists`);
    const env = { ...spec.env, CATALYST_RUN_TAG: spec.sessionId };
    const job = new Job({ tag: spec.sessionId, argv: spec.argv, cwd: spec.cwd, env }, this.#factory);
    this.all.push(job);
    const now = Date.now();
    const session: Session = {
      job,
      spec,
      startedAt: now,
      holder: undefined,
      heardAt: now,
      isTurn: false,
      stateAt: now,
    };
    this.#sessions.set(spec.sessionId, session);
    this.#watchLimits(session);
    for (const resolve of this.#started.get(spec.sessionId)?.splice(0) ?? []) resolve();
  }

  #startOf(sessionId: string): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.#started.get(sessionId) ?? [];
      waiting.push(resolve);
      this.#started.set(sessionId, waiting);
      setTimeout(resolve, AWAIT_START_MS).unref();
    });
  }

  /** The session supervisor's timer (vm/session-supervisor.sh): lifetime, detached limit, lease, warm idle. */
  #watchLimits(session: Session): void {
    const { limits } = session.spec;
    const timer = setInterval(() => {
      const { job } = session;
      if (!job.isAlive) {
        clearInterval(timer);
        return;
      }
      const now = Date.now();
      const heard = session.holder === undefined ? session.heardAt : now;
      if (now - session.startedAt >= limits.maxLifetimeSeconds * 1000) job.stop('max_lifetime');
      else if (session.isTurn) {
        if (now - heard >= limits.detachedSeconds * 1000) job.stop('detached_limit');
      } else if (now - heard >= limits.leaseSeconds * 1000) {
        job.claim('backend_gone');
        job.endInput();
      } else if (now - session.stateAt >= limits.warmIdleSeconds * 1000) {
        job.claim('idle');
        job.endInput();
      }
    }, LIMIT_POLL_MS);
    timer.unref();
  }

  #attach(
    sessionId: string,
    offsets: { stdout: number; stderr: number },
    options: AttachOptions,
  ): JobAttachment {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return refused('SESSION_GONE', 'the session is no longer on the host');
    if (session.holder !== undefined) {
      if (options.follower === undefined || session.holder.follower !== options.follower)
        return refused('SESSION_BUSY', 'another Catalyst is attached to this session');
      session.holder.detach('another attachment of the same follower took over');
    }
    const { job } = session;
    let end: (value: AttachmentEnd) => void = () => undefined;
    const ended = new Promise<AttachmentEnd>((resolve) => (end = resolve));
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    let isHeld = true;
    const holder = {
      follower: options.follower,
      detach(message: string) {
        if (!isHeld) return;
        isHeld = false;
        session.holder = undefined;
        session.heardAt = Date.now();
        letGo();
        end({ kind: 'detached', message });
      },
    };
    session.holder = holder;
    void job.ended.then(({ code, reason }) => {
      if (!isHeld) return;
      isHeld = false;
      session.holder = undefined;
      session.heardAt = Date.now();
      end({ kind: 'session_ended', code, reason });
    });
    const isDone = () => !isHeld && job.isAlive;
    const markTurn = (isRunning: boolean) => {
      if (!isHeld) return;
      session.isTurn = isRunning;
      session.stateAt = Date.now();
    };
    return {
      stdout: follow(job, 'out', offsets.stdout, isDone, released),
      stderr: follow(job, 'err', offsets.stderr, isDone, released),
      writeLine(line) {
        if (!line.startsWith('{') || line.includes('\n'))
          throw new CatalystError('INVALID_ARGUMENT', 'a session input line must be one JSON object');
        if (isHeld) job.line(line);
      },
      markTurn,
      endInput: () => {
        if (isHeld) job.endInput();
      },
      interrupt: () => {
        if (isHeld) job.interrupt();
      },
      cancel: () => {
        if (isHeld) job.stop();
      },
      detach: () => {
        holder.detach('the channel closed');
      },
      ready: Promise.resolve(true),
      ended,
    };
  }
}

/** An attachment opened before its session starts (AttachOptions.awaitStart): it is made once the start comes. */
function later(made: Promise<JobAttachment>): JobAttachment {
  const forward =
    (key: 'markTurn' | 'endInput' | 'interrupt' | 'cancel' | 'detach' | 'writeLine') =>
    (...values: unknown[]) => {
      void made.then((attachment) => {
        (attachment[key] as (...given: unknown[]) => void)(...values);
      });
    };
  async function* stream(key: 'stdout' | 'stderr'): AsyncGenerator<Uint8Array> {
    yield* (await made)[key];
  }
  return {
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    writeLine: forward('writeLine'),
    markTurn: forward('markTurn'),
    endInput: forward('endInput'),
    interrupt: forward('interrupt'),
    cancel: forward('cancel'),
    detach: forward('detach'),
    ready: made.then((attachment) => attachment.ready),
    ended: made.then((attachment) => attachment.ended),
  };
}

function refused(code: 'SESSION_BUSY' | 'SESSION_GONE', message: string): JobAttachment {
  const nothing = (async function* (): AsyncGenerator<Uint8Array> {})();
  return {
    stdout: nothing,
    stderr: (async function* (): AsyncGenerator<Uint8Array> {})(),
    writeLine: () => undefined,
    markTurn: () => undefined,
    endInput: () => undefined,
    interrupt: () => undefined,
    cancel: () => undefined,
    detach: () => undefined,
    ready: Promise.resolve(false),
    ended: Promise.resolve({ kind: 'refused', code, message }),
  };
}

function infoOf(sessionId: string, session: Session): VmJobInfo {
  const { job } = session;
  return {
    sessionId,
    isAlive: job.isAlive,
    stdoutBytes: job.bytes('out'),
    stderrBytes: job.bytes('err'),
    ...(job.status === undefined ? {} : { status: job.status }),
    ...(session.holder === undefined ? {} : { heldForSeconds: 0 }),
  };
}

function outcomeOf(status: JobStatus, program: string | undefined): RunOutcome {
  if (status.reason === 'not_found')
    return {
      kind: 'start_failed',
      code: 'CLI_NOT_FOUND',
      message: `${program ?? 'the command'} was not found`,
    };
  if (status.reason === 'cancel') return { kind: 'cancelled' };
  return { kind: 'exited', code: status.code, signal: null };
}
