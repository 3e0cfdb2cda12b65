import type { SFTPWrapper } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import { describeError } from './ssh-errors.ts';
import type { SshPool } from './ssh-pool.ts';

/**
 * The SSH host's one shared SFTP session, and the time limit of every file call on it (issue 25, finding 11).
 * OpenSSH's sftp-server answers its requests one at a time: one that never returns (an open() of a FIFO waits for a
 * writer, a hung disk) would hold every later call of the host, every idea on it. A call that gets no answer
 * within the limit fails with HOST_TIMED_OUT; its session is then stuck for good, so every call still on it fails
 * too, and later calls get a new session. The stuck one is ended (its channel closed): its sftp-server exits once
 * its request returns, and only then does sshd close the channel and free its MaxSessions slot (ssh-field-notes.md
 * §4), so the pool counts the slot as taken until then. A request that never returns (a FIFO nobody ever writes)
 * keeps its slot, and its connection from idling out, until that connection is lost or the pool closed: Catalyst
 * cannot end a process on the VM that it knows no pid of.
 */

/** A file call, for the error that names it. */
export interface FileCall {
  action: string;
  path: string;
}

/** Runs `work` on an SFTP session within the host's file time limit. */
export type WithSftp = <T>(call: FileCall, work: (sftp: SFTPWrapper) => Promise<T>) => Promise<T>;

/**
 * Long enough for a large read of an idea's history over a slow link, short enough that a stuck call answers the
 * page, and that Catalyst's shutdown (which waits for the calls under way) ends well within its own limit.
 */
export const DEFAULT_FILE_TIMEOUT_MS = 20_000;

/** An SFTP session unused this long is ended, so an idle host holds no channel. */
const SFTP_IDLE_MS = 2_000;

interface SharedSftp {
  sftp: SFTPWrapper;
  failure: SessionFailure;
  users: number;
  idle?: NodeJS.Timeout;
}

/**
 * One SFTP session per host, shared by every file operation under way (SFTP carries concurrent requests) and
 * ended after a short idle spell. Opening one per operation costs a channel and a forked sftp-server on the VM
 * each time: the event history appends every few tens of milliseconds while a run streams.
 */
export function createSharedSftp(pool: SshPool, options: { label: string; timeoutMs: number }): WithSftp {
  let shared: Promise<SharedSftp> | undefined;
  const open = (): Promise<SharedSftp> => {
    const opening = pool
      .open('control', (connection) => connection.sftp())
      .then((sftp: SFTPWrapper) => {
        const session: SharedSftp = { sftp, failure: failOnError(sftp), users: 0 };
        const forget = () => {
          if (shared === opening) shared = undefined;
        };
        sftp.on('close', forget);
        sftp.on('error', forget);
        // A session starts idle: the calls that asked for it may all have timed out while the pool was still
        // opening it (its channels busy), and then nothing else would ever end it (issue 25 review).
        endWhenIdle(session, forget);
        return session;
      });
    opening.catch(() => {
      if (shared === opening) shared = undefined;
    });
    return opening;
  };
  const replace = (current: Promise<SharedSftp>, session: SharedSftp | undefined, error: CatalystError) => {
    if (shared === current) shared = undefined;
    // Not open yet (the pool's channels were busy): when it opens, the calls still waiting for it may use it, and
    // it ends after its idle spell.
    if (session === undefined) return;
    clearTimeout(session.idle);
    session.failure.fail(error);
    session.sftp.end();
  };
  return async (call, work) => {
    shared ??= open();
    const current = shared;
    const deadline = startDeadline(call, options);
    let session: SharedSftp | undefined;
    try {
      session = await Promise.race([current, deadline.expired]);
      clearTimeout(session.idle);
      session.users += 1;
      try {
        return await session.failure.race(call, work(session.sftp), deadline.expired);
      } finally {
        session.users -= 1;
        if (session.users === 0 && !session.failure.hasFailed()) {
          endWhenIdle(session, () => {
            if (shared === current) shared = undefined;
          });
        }
      }
    } catch (error) {
      if (deadline.hasExpired() && error === deadline.error) replace(current, session, deadline.error);
      throw error;
    } finally {
      deadline.cancel();
    }
  };
}

function endWhenIdle(session: SharedSftp, forget: () => void): void {
  session.idle = setTimeout(() => {
    forget();
    // Ending the session frees its MaxSessions slot (§7: SFTP takes one like any channel).
    session.sftp.end();
  }, SFTP_IDLE_MS);
  session.idle.unref();
}

interface Deadline {
  /** Rejects with `error` once the limit has passed; never settles before. */
  readonly expired: Promise<never>;
  readonly error: CatalystError;
  hasExpired(): boolean;
  cancel(): void;
}

function startDeadline(call: FileCall, options: { label: string; timeoutMs: number }): Deadline {
  const error = new CatalystError(
    'HOST_TIMED_OUT',
    `${call.action} ${call.path}: ${options.label} did not answer within ${String(options.timeoutMs)} ms`,
    { details: { host: options.label, ...call, timeoutMs: options.timeoutMs } },
  );
  let timer: NodeJS.Timeout | undefined;
  let hasExpired = false;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      hasExpired = true;
      reject(error);
    }, options.timeoutMs);
  });
  // Raced by every call, but a call that ends first leaves it unobserved.
  expired.catch(() => undefined);
  return {
    expired,
    error,
    hasExpired: () => hasExpired,
    cancel: () => {
      clearTimeout(timer);
    },
  };
}

/**
 * An SFTP session that fails at the protocol level emits 'error' (unhandled, it would end the process); one that
 * stops answering is failed by its caller (`fail`). Either way, the operations under way on it fail at once.
 * Each operation races its own short-lived promise, never one promise that lives as long as the session: every
 * `Promise.race` against a pending promise adds a reaction to it that keeps the race's result, so a long-lived one
 * would hold every Buffer the session ever read (measured: 0.8 MB per history replayed, bench-relay's 500 ideas).
 */
interface SessionFailure {
  race<T>(call: FileCall, work: Promise<T>, deadline: Promise<never>): Promise<T>;
  /** The session is not to be used again: `reason` (a call's time-out) fails the calls under way on it. */
  fail(reason: CatalystError): void;
  hasFailed(): boolean;
}

function failOnError(sftp: SFTPWrapper): SessionFailure {
  let failure: CatalystError | undefined;
  const waiting = new Set<(error: CatalystError) => void>();
  const failAll = (error: CatalystError) => {
    failure ??= error;
    for (const fail of waiting) fail(failure);
  };
  sftp.on('error', (error: unknown) => {
    failAll(
      new CatalystError('CONNECTION_LOST', `the SFTP session failed: ${describeError(error)}`, {
        cause: error,
      }),
    );
  });
  return {
    async race(call, work, deadline) {
      if (failure !== undefined) throw failedFor(call, failure);
      let fail: ((error: CatalystError) => void) | undefined;
      const broken = new Promise<never>((_resolve, reject) => {
        fail = (error) => {
          reject(failedFor(call, error));
        };
        waiting.add(fail);
      });
      try {
        return await Promise.race([work, broken, deadline]);
      } finally {
        if (fail !== undefined) waiting.delete(fail);
      }
    },
    fail(reason) {
      failAll(reason);
    },
    hasFailed: () => failure !== undefined,
  };
}

/** A call on a session that another call found stuck would never be answered either: it says so. */
function failedFor(call: FileCall, stuck: CatalystError): CatalystError {
  if (stuck.code !== 'HOST_TIMED_OUT') return stuck;
  if (stuck.details['path'] === call.path && stuck.details['action'] === call.action) return stuck;
  return new CatalystError(
    'HOST_TIMED_OUT',
    `${call.action} ${call.path}: the host's SFTP session stopped answering (${stuck.message})`,
    { cause: stuck, details: { ...stuck.details, ...call } },
  );
}
