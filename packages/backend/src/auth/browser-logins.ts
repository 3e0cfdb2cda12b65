import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

/**
 * The signed-in browsers (issue 25): which logins are still good, so that one can be signed out (a logout, a lost
 * phone) and every one ends CATALYST_SESSION_DAYS after its login, without changing the token. A session is known
 * by the SHA-256 of its cookie's id, never the id itself, and listed under an id of its own (`session-…`): what is
 * kept and shown opens nothing. The key beside the cookie is still checked against the token
 * (login-cookie.ts), so a record alone lets nobody in either.
 *
 * Logins and sign-outs are saved before they are answered; last-seen times only to the minute, and written at
 * most once per `saveDelayMs` however many requests come (a page polls). The store itself does no I/O:
 * `save` is given every record at once (logins-file.ts writes them).
 *
 * A failed save (a full disk) leaves the store's memory the truth: a sign-out holds at once and stays, a login
 * that could not be saved is dropped, and the whole list is written again every `retryDelayMs` until a write
 * succeeds, and by `close()` (issue 25: a browser signed out while the disk was full came back after a restart).
 */

export interface BrowserLogin {
  /** `session-<16 hex>`: what the list shows and `DELETE /api/sessions/:id` takes. */
  readonly id: string;
  /** Hex SHA-256 of the cookie's session id. */
  readonly digest: string;
  readonly name: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** Started by a pairing code (issue 29) rather than the token. */
  readonly isPaired?: true;
}

export interface BrowserLoginsOptions {
  /** A session ends this long after its login (CATALYST_SESSION_DAYS). */
  lifetimeMs: number;
  /** Writes the whole list; a rejection fails the login or sign-out that caused it, and is retried. */
  save: (sessions: readonly BrowserLogin[]) => Promise<void>;
  logger: Logger;
  /** Tests move the clock; Date.now otherwise. */
  now?: () => number;
  /** As they were saved (logins-file.ts). */
  initial?: readonly BrowserLogin[];
  /** The longest a last-seen change waits to be written (default 5 min). */
  saveDelayMs?: number;
  /** How soon a failed write is tried again (default 10 s). */
  retryDelayMs?: number;
}

export interface BrowserLogins {
  /** A new session for a cookie id; saved when this resolves, and gone again when it rejects. */
  add(cookieId: string, name: string, origin?: { isPaired: boolean }): Promise<BrowserLogin>;
  /** The live session of a cookie id (last seen now), else undefined; one past its end is ended here. */
  use(cookieId: string): BrowserLogin | undefined;
  /** The live sessions, newest login first. */
  list(): BrowserLogin[];
  expiresAt(session: BrowserLogin): number;
  /**
   * Signs a session out at once, saved when this resolves (a rejection: not saved yet, retried); false when there
   * is no such live session.
   */
  end(id: string): Promise<boolean>;
  /** Told the id of every session that ends: signed out, logged out or past its end. */
  onEnded(listener: (id: string) => void): () => void;
  /** Writes what waits (or what a failed write left unsaved), stops the timers. */
  close(): Promise<void>;
}

export const SESSION_ID_PREFIX = 'session-';
const LAST_SEEN_STEP_MS = 60_000;
const DEFAULT_SAVE_DELAY_MS = 5 * 60_000;
const DEFAULT_RETRY_DELAY_MS = 10_000;
/** How often sessions past their end are looked for, so their open WebSockets close even when they send nothing. */
const SWEEP_INTERVAL_MS = 60 * 60_000;

export function digestOfCookieId(cookieId: string): string {
  return createHash('sha256').update(cookieId, 'utf8').digest('hex');
}

export function createBrowserLogins(options: BrowserLoginsOptions): BrowserLogins {
  return new LoginStore(options);
}

class LoginStore implements BrowserLogins {
  readonly #options: BrowserLoginsOptions;
  readonly #now: () => number;
  readonly #byDigest = new Map<string, BrowserLogin>();
  readonly #listeners = new Set<(id: string) => void>();
  readonly #writer: ReturnType<typeof createWriter>;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: BrowserLoginsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    for (const session of options.initial ?? []) this.#byDigest.set(session.digest, session);
    this.#writer = createWriter(options, () => [...this.#byDigest.values()]);
    this.#sweeper = setInterval(() => {
      this.#sweep();
    }, SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  async add(cookieId: string, name: string, origin?: { isPaired: boolean }): Promise<BrowserLogin> {
    const at = this.#now();
    const digest = digestOfCookieId(cookieId);
    const session: BrowserLogin = {
      id: newSessionId(),
      digest,
      name,
      createdAt: at,
      lastSeenAt: at,
      ...(origin?.isPaired === true ? { isPaired: true } : {}),
    };
    this.#byDigest.set(digest, session);
    // Its cookie is never handed out: dropped before any later write takes its snapshot.
    await this.#writer.now(() => this.#byDigest.delete(digest));
    return session;
  }

  use(cookieId: string): BrowserLogin | undefined {
    const session = this.#byDigest.get(digestOfCookieId(cookieId));
    if (session === undefined) return undefined;
    const at = this.#now();
    if (at >= this.expiresAt(session)) {
      this.#end(session);
      this.#writer.later();
      return undefined;
    }
    if (at - session.lastSeenAt < LAST_SEEN_STEP_MS) return session;
    const seen = { ...session, lastSeenAt: at };
    this.#byDigest.set(seen.digest, seen);
    this.#writer.later();
    return seen;
  }

  list(): BrowserLogin[] {
    this.#sweep();
    return [...this.#byDigest.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  expiresAt(session: BrowserLogin): number {
    return session.createdAt + this.#options.lifetimeMs;
  }

  async end(id: string): Promise<boolean> {
    const session = [...this.#byDigest.values()].find((candidate) => candidate.id === id);
    if (session === undefined) return false;
    this.#end(session);
    await this.#writer.now();
    return true;
  }

  onEnded(listener: (id: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await this.#writer.close().catch((error: unknown) => {
      this.#options.logger.error(
        { err: error },
        'the browser sessions could not be saved: sign-outs and last-seen times since the last save are lost',
      );
    });
  }

  #end(session: BrowserLogin): void {
    this.#byDigest.delete(session.digest);
    for (const listener of [...this.#listeners]) listener(session.id);
  }

  #sweep(): void {
    const at = this.#now();
    for (const session of [...this.#byDigest.values()]) {
      if (at < this.expiresAt(session)) continue;
      this.#end(session);
      this.#writer.later();
    }
  }
}

function newSessionId(): string {
  return `${SESSION_ID_PREFIX}${randomBytes(8).toString('hex')}`;
}

/**
 * One write at a time, each of the whole list as it is when the write starts; `later` coalesces. A failed write
 * leaves the list dirty and tries again after `retryDelayMs`, until one succeeds or the store closes.
 */
function createWriter(options: BrowserLoginsOptions, snapshot: () => BrowserLogin[]) {
  let queue: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let isDirty = false;
  let isClosed = false;
  const schedule = (delayMs: number): void => {
    if (timer !== undefined || isClosed) return;
    timer = setTimeout(() => {
      timer = undefined;
      write().catch((error: unknown) => {
        options.logger.error({ err: error }, 'the browser sessions could not be saved; retrying');
      });
    }, delayMs);
    timer.unref();
  };
  /** `onFailure` runs before the next write starts. */
  const write = (onFailure?: () => void): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const run = queue.then(async () => {
      isDirty = false;
      try {
        await options.save(snapshot());
      } catch (error) {
        onFailure?.();
        isDirty = true;
        // Sooner than a last-seen change waiting meanwhile: what failed may be a sign-out.
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        schedule(options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS);
        throw error;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    now: write,
    later(): void {
      isDirty = true;
      schedule(options.saveDelayMs ?? DEFAULT_SAVE_DELAY_MS);
    },
    /** The last write, once the one under way (if any) has settled: whatever is unsaved then, even a failure. */
    async close(): Promise<void> {
      isClosed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await queue;
      if (isDirty) await write();
    },
  };
}
