import type { Logger } from 'pino';
import type { WarmProcess } from '../runs/run-driver.ts';
import type { SessionProcess } from '../runs/session-process.ts';
import { SESSION_LIFETIME_MS } from '../runs/session-spec.ts';

/** CATALYST_WARM_PER_HOST: each waiting claude holds memory on the VM. */
export const DEFAULT_WARM_PER_HOST = 4;

/**
 * The idle claude processes of ideas, kept between turns (issue 11, warm turns): at most one per idea, at most
 * `perHost` per host (the least recently used is ended first; a running turn is never here, so never evicted).
 * The session's own idle limit on the host ends a process nobody uses (CATALYST_WARM_IDLE_MS): it then leaves
 * this registry by itself. A process is ended by closing its input (the CLI exits once idle), or stopped when the
 * idea goes away.
 */

export interface WarmSessionsOptions {
  perHost: number;
  /** The longest a turn may run: a process too old to fit one more before its lifetime ends is not used. */
  maxTurnMs: number;
  logger: Logger;
  /** How long an ended process may take to exit before it is stopped. */
  exitGraceMs?: number;
}

interface Entry {
  host: string;
  warm: WarmProcess;
  key: string;
  usedAt: number;
}

const DEFAULT_EXIT_GRACE_MS = 5_000;

export class WarmSessions {
  readonly #options: WarmSessionsOptions;
  readonly #idle = new Map<string, Entry>();
  /** Pre-warms on their way: a turn of the idea waits for its one rather than starting a second claude. */
  readonly #starting = new Map<string, Promise<unknown>>();

  constructor(options: WarmSessionsOptions) {
    this.#options = options;
  }

  has(ideaId: string): boolean {
    return this.#idle.has(ideaId);
  }

  /**
   * The idea's warm process for a turn with this command (`key`, session-spec.ts), taken out of the registry; or
   * none, after ending one that does not fit (another mode or command, or too old), so that two processes never
   * share the idea's Claude session.
   */
  async take(ideaId: string, key: string): Promise<WarmProcess | undefined> {
    await this.#starting.get(ideaId)?.catch(() => undefined);
    const entry = this.#idle.get(ideaId);
    if (entry === undefined) return undefined;
    this.#idle.delete(ideaId);
    const age = Date.now() - entry.warm.process.startedAt;
    if (
      entry.key === key &&
      !entry.warm.process.isOver &&
      age + this.#options.maxTurnMs < SESSION_LIFETIME_MS
    ) {
      return entry.warm;
    }
    await this.#end(entry.warm.process, 'close');
    return undefined;
  }

  /** A turn left its process warm (or a pre-warmed one is ready): it waits here for the idea's next turn. */
  keep(ideaId: string, host: string, key: string, warm: WarmProcess): void {
    const before = this.#idle.get(ideaId);
    if (before !== undefined && before.warm.process !== warm.process)
      void this.#end(before.warm.process, 'close');
    const entry: Entry = { host, warm, key, usedAt: Date.now() };
    this.#idle.set(ideaId, entry);
    // Gone by itself (idle limit, the VM restarted): forgotten.
    void warm.process.over.then(() => {
      if (this.#idle.get(ideaId) === entry) this.#idle.delete(ideaId);
    });
    this.#evictOver(host);
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
    await this.#end(entry.warm.process, 'stop');
  }

  /** Catalyst stops: every waiting process ends (they are a cache; the next Catalyst starts its own). */
  async endAll(): Promise<void> {
    const entries = [...this.#idle.values()];
    this.#idle.clear();
    await Promise.all(entries.map((entry) => this.#end(entry.warm.process, 'close')));
  }

  /** The session ids of the processes waiting here. */
  sessionIds(): string[] {
    return [...this.#idle.values()].map((entry) => entry.warm.process.sessionId);
  }

  #evictOver(host: string): void {
    const onHost = [...this.#idle.entries()]
      .filter(([, entry]) => entry.host === host)
      .sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [ideaId, entry] of onHost.slice(0, Math.max(0, onHost.length - this.#options.perHost))) {
      this.#idle.delete(ideaId);
      this.#options.logger.info({ ideaId, host }, 'ended a warm session: the host has its most');
      void this.#end(entry.warm.process, 'close');
    }
  }

  /** `close`: its input closes and the CLI exits; `stop` (or a CLI that does not exit in time): stopped by tag. */
  async #end(process: SessionProcess, how: 'close' | 'stop'): Promise<void> {
    if (process.isOver) return;
    if (how === 'stop') process.run.cancel();
    else void process.run.endInput();
    const grace = new Promise<'late'>((resolve) => {
      const timer = setTimeout(() => {
        resolve('late');
      }, this.#options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS);
      void process.over.finally(() => {
        clearTimeout(timer);
      });
    });
    if ((await Promise.race([process.over, grace])) === 'late') {
      process.run.cancel();
      await process.over;
    }
  }
}
