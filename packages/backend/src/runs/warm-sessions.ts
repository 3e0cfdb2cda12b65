import type { Logger } from 'pino';
import { settlesWithin } from '../core/settles-within.ts';
import { DEFAULT_GRACE_MS } from '../host/wrapped-run.ts';
import type { WarmProcess } from './run-driver-options.ts';
import { SESSION_LIFETIME_MS } from './session-spec.ts';

/** CATALYST_WARM_PER_HOST: each waiting claude holds memory on the VM. */
export const DEFAULT_WARM_PER_HOST = 4;

/**
 * The idle claude processes of ideas, kept between turns (issue 11, warm turns): at most one per idea, at most
 * `perHost` per host (the least recently used is ended first; a running turn is never here, so never evicted).
 * The session's own idle limit on the host ends a process nobody uses (CATALYST_WARM_IDLE_MS): it then leaves
 * this registry by itself. A process is ended by closing its input (the CLI exits once idle), or stopped when the
 * idea goes away. One that prints while it waits (issue 39: a turn of the CLI's own, once a background command of
 * the last turn ended) is retired at once: nobody reads that turn, and the next message would queue behind it.
 */

export interface WarmSessionsOptions {
  perHost: number;
  /** The longest a turn may run: a process too old to fit one more before its lifetime ends is not used. */
  maxTurnMs: number;
  logger: Logger;
  /** How long an ended process may take to exit before it is stopped. */
  exitGraceMs?: number;
  /** How long a stopped process may take to be over (the host's TERM, its grace, KILL) before it is let go. */
  stopGraceMs?: number;
}

interface Entry {
  host: string;
  warm: WarmProcess;
  key: string;
  usedAt: number;
  /**
   * Pre-warmed and never given a turn: it may be stopped without waiting for its exit. Until its first message the
   * CLI writes nothing to the session; stopped, it appends at most its exit bookkeeping (a `mode` and a `cost-state`
   * line, measured in test/mode-switch.test.ts), within moments of the signal, long before a next claude, still
   * starting then, takes a turn: the conversation a next claude resumes is the same.
   */
  isFresh: boolean;
}

const DEFAULT_EXIT_GRACE_MS = 5_000;
/** Well above the host's own wait between TERM and KILL. */
const DEFAULT_STOP_GRACE_MS = DEFAULT_GRACE_MS + 10_000;

export class WarmSessions {
  readonly #options: WarmSessionsOptions;
  readonly #idle = new Map<string, Entry>();
  /** Pre-warms on their way: a turn of the idea waits for its one rather than starting a second claude. */
  readonly #starting = new Map<string, Promise<unknown>>();
  /** Used processes ending because the next turn is in another mode: a new one of the idea waits for the exit. */
  readonly #ending = new Map<string, Promise<void>>();

  constructor(options: WarmSessionsOptions) {
    this.#options = options;
  }

  has(ideaId: string): boolean {
    return this.#idle.has(ideaId);
  }

  /** The key (session-spec.ts) of the idea's waiting process, if it has one. */
  keyOf(ideaId: string): string | undefined {
    return this.#idle.get(ideaId)?.key;
  }

  /** The idea's process ending (`retire`) has exited: a new claude may resume the idea's session. */
  async ended(ideaId: string): Promise<void> {
    await this.#ending.get(ideaId);
  }

  /**
   * The idea's warm process for a turn with this command (`key`, session-spec.ts), taken out of the registry; or
   * none, after ending one that does not fit (another mode or command, or too old), so that two processes never
   * share the idea's Claude session (one that never took a turn is stopped without that wait: `drop`).
   */
  async take(ideaId: string, key: string): Promise<WarmProcess | undefined> {
    // A pre-warm may ask for another when it ends (prewarms.ts): the turn waits for the last one.
    // A process retired meanwhile (it printed while waiting) must be gone before a new claude resumes its session.
    for (
      let pending = this.#starting.get(ideaId) ?? this.#ending.get(ideaId);
      pending !== undefined;
      pending = this.#starting.get(ideaId) ?? this.#ending.get(ideaId)
    )
      await pending.catch(() => undefined);
    const entry = this.#idle.get(ideaId);
    if (entry === undefined) return undefined;
    this.#idle.delete(ideaId);
    const age = Date.now() - entry.warm.process.startedAt;
    if (
      entry.key === key &&
      !entry.warm.process.isOver &&
      !entry.warm.process.hasIdleOutput &&
      age + this.#options.maxTurnMs < SESSION_LIFETIME_MS
    ) {
      return entry.warm;
    }
    await this.#end(entry, 'drop');
    return undefined;
  }

  /**
   * The idea's waiting process, unless its key is `key`, ends: at once when it never took a turn, else once it has
   * exited (the next claude resumes the session it wrote).
   */
  async drop(ideaId: string, key: string): Promise<void> {
    await this.ended(ideaId);
    const entry = this.#idle.get(ideaId);
    if (entry === undefined || entry.key === key) return;
    this.#idle.delete(ideaId);
    await this.#end(entry, 'drop');
  }

  /** A turn left its process warm: it waits here for the idea's next turn. */
  keep(ideaId: string, host: string, key: string, warm: WarmProcess): void {
    this.#keep(ideaId, { host, warm, key, usedAt: Date.now(), isFresh: false });
  }

  /** A pre-warmed process is ready: it waits here for the idea's first turn. */
  keepFresh(ideaId: string, host: string, key: string, warm: WarmProcess): void {
    this.#keep(ideaId, { host, warm, key, usedAt: Date.now(), isFresh: true });
  }

  /**
   * A turn ended and the idea's next one is expected in another mode: its process ends now, so that its exit
   * overlaps the run's own bookkeeping; the next claude of the idea waits for what is left of it.
   */
  retire(ideaId: string, warm: WarmProcess): void {
    const exited = this.#end({ warm, isFresh: false }, 'close');
    const before = this.#ending.get(ideaId);
    const ending = Promise.all([before, exited]).then(() => {
      if (this.#ending.get(ideaId) === ending) this.#ending.delete(ideaId);
    });
    this.#ending.set(ideaId, ending);
  }

  #keep(ideaId: string, entry: Entry): void {
    const { host, warm } = entry;
    const before = this.#idle.get(ideaId);
    if (before !== undefined && before.warm.process !== warm.process) void this.#end(before, 'drop');
    this.#idle.set(ideaId, entry);
    // Gone by itself (idle limit, the VM restarted): forgotten.
    void warm.process.over.then(() => {
      if (this.#idle.get(ideaId) === entry) this.#idle.delete(ideaId);
    });
    void warm.process.idleOutput.then(() => {
      this.#retireUnasked(ideaId, entry);
    });
    this.#evictOver(host);
  }

  /** The process printed while it waited: a turn of the CLI's own. It ends; the next turn resumes its session. */
  #retireUnasked(ideaId: string, entry: Entry): void {
    if (this.#idle.get(ideaId) !== entry) return;
    this.#idle.delete(ideaId);
    this.#options.logger.info(
      { ideaId, sessionId: entry.warm.process.sessionId },
      'a warm claude ran a turn of its own while it waited: ended, the next turn resumes its session',
    );
    this.retire(ideaId, entry.warm);
  }

  /** A pre-warm of the idea is on its way (it ends with `keep`, or not at all). */
  starting(ideaId: string, pending: Promise<unknown>): void {
    const settled = pending
      .catch(() => undefined)
      .finally(() => {
        if (this.#starting.get(ideaId) === settled) this.#starting.delete(ideaId);
      });
    this.#starting.set(ideaId, settled);
  }

  /** The idea goes away (deleted): its process is stopped, and gone when this resolves. */
  async stop(ideaId: string): Promise<void> {
    await this.#starting.get(ideaId)?.catch(() => undefined);
    const entry = this.#idle.get(ideaId);
    if (entry === undefined) return;
    this.#idle.delete(ideaId);
    await this.#end(entry, 'stop');
  }

  /** Catalyst stops: every waiting process ends (they are a cache; the next Catalyst starts its own). */
  async endAll(): Promise<void> {
    const entries = [...this.#idle.values()];
    this.#idle.clear();
    await Promise.all([...entries.map((entry) => this.#end(entry, 'close')), ...[...this.#ending.values()]]);
  }

  /** The session ids of the processes waiting here. */
  sessionIds(): string[] {
    return [...this.#idle.values()].map((entry) => entry.warm.process.sessionId);
  }

  /**
   * A run on `host` waits for a channel that idle sessions hold (issue 39, carried item 3): the least recently used
   * process there ends, and its channel goes back to the host's pool as it exits. False when none waits there.
   */
  yieldOne(host: string): boolean {
    const oldest = [...this.#idle.entries()]
      .filter(([, entry]) => entry.host === host)
      .sort(([, a], [, b]) => a.usedAt - b.usedAt)[0];
    if (oldest === undefined) return false;
    const [ideaId, entry] = oldest;
    this.#idle.delete(ideaId);
    this.#options.logger.info({ ideaId, host }, 'ended a warm session: a run waits for its channel');
    // As a retire: the idea's next claude waits for this one's exit before it resumes the session.
    this.retire(ideaId, entry.warm);
    return true;
  }

  #evictOver(host: string): void {
    const onHost = [...this.#idle.entries()]
      .filter(([, entry]) => entry.host === host)
      .sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [ideaId, entry] of onHost.slice(0, Math.max(0, onHost.length - this.#options.perHost))) {
      this.#idle.delete(ideaId);
      this.#options.logger.info({ ideaId, host }, 'ended a warm session: the host has its most');
      void this.#end(entry, 'close');
    }
  }

  /**
   * `close`: its input closes and the CLI exits; `stop` (or a CLI that does not exit in time): stopped by tag;
   * `drop`: a fresh process is stopped and not waited for (it wrote nothing a next claude could race with), a used
   * one is closed. A process still there a grace after its stop (the stop was lost with its connection) is let go,
   * told to stop once more on a channel of its own; its session's lease ends it on the host if that is lost too.
   * Nothing here (a turn, Catalyst's stop) waits on it for ever.
   */
  async #end(entry: Pick<Entry, 'warm' | 'isFresh'>, how: 'close' | 'stop' | 'drop'): Promise<void> {
    const { process } = entry.warm;
    if (process.isOver) return;
    if (how === 'drop' && entry.isFresh) {
      process.run.cancel();
      return;
    }
    if (how === 'stop') process.run.cancel();
    else void process.run.endInput();
    if (!(await settlesWithin(process.over, this.#options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS))) {
      process.run.cancel();
      if (!(await settlesWithin(process.over, this.#options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS))) {
        this.#options.logger.warn(
          { sessionId: process.sessionId },
          'a warm claude was not over when stopped: let go (stopped once more; its lease ends it on the host)',
        );
        process.run.abandonStopping();
      }
    }
  }
}
