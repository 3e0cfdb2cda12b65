import { posix } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import type { Host } from '../host/host.ts';
import { IdeaStore } from '../ideas/idea-store.ts';
import type { HostEntry } from '../host/host-entry.ts';
import { claimIdeasRoot } from '../ideas/ideas-root-claim.ts';

/**
 * The configured hosts, each with its adapter (local or SSH, chosen by the composition root) and, once its home
 * is known, its idea store. A host that is down fails only its own calls.
 */
export interface RegisteredHost {
  readonly name: string;
  readonly entry: HostEntry;
  readonly host: Host;
  readonly isDefault: boolean;
}

export class HostRegistry {
  readonly #hosts = new Map<string, RegisteredHost>();
  readonly #stores = new Map<string, Promise<IdeaStore>>();
  readonly #claudes = new Map<string, Promise<ClaudeRuntime>>();
  readonly #createHost: (entry: HostEntry) => Host;
  #defaultName: string;

  constructor(entries: readonly HostEntry[], defaultName: string, createHost: (entry: HostEntry) => Host) {
    this.#createHost = createHost;
    this.#defaultName = defaultName;
    for (const entry of entries) this.#hosts.set(entry.name, this.#register(entry));
    if (!this.#hosts.has(defaultName))
      throw new CatalystError('CONFIG_INVALID', `The default host ${defaultName} is not configured.`);
  }

  get defaultName(): string {
    return this.#defaultName;
  }

  all(): RegisteredHost[] {
    return [...this.#hosts.values()];
  }

  /** A host added while Catalyst runs (issue 28): HOST_EXISTS when the name is taken. */
  add(entry: HostEntry): RegisteredHost {
    if (this.#hosts.has(entry.name))
      throw new CatalystError('HOST_EXISTS', `There is a host named ${entry.name} already.`);
    const registered = this.#register(entry);
    this.#hosts.set(entry.name, registered);
    return registered;
  }

  /**
   * The host under its name changed: new connections go the new way at once. The old adapter is returned, for the
   * caller to close once what went over it has ended (issue 39: a terminal's kill by tag needs its pool).
   */
  replace(entry: HostEntry): Host {
    const old = this.get(entry.name);
    this.#hosts.set(entry.name, this.#register(entry));
    this.forget(entry.name);
    return old.host;
  }

  /** The host is gone at once; its adapter is returned, for the caller to close (as replace). */
  remove(name: string): Host {
    const old = this.get(name);
    if (name === this.#defaultName)
      throw new CatalystError(
        'INVALID_ARGUMENT',
        `${name} is the default host: make another host the default first.`,
      );
    this.#hosts.delete(name);
    this.forget(name);
    return old.host;
  }

  setDefault(name: string): void {
    this.get(name);
    this.#defaultName = name;
    for (const [key, registered] of this.#hosts) {
      this.#hosts.set(key, { ...registered, isDefault: key === name });
    }
  }

  /** A new adapter for the host, of its own (a check's fresh connection), for the caller to close. */
  createFresh(name: string): Host {
    return this.#createHost(this.get(name).entry);
  }

  /** Drops what was learnt of the host (its home, its claude): asked again next time. */
  forget(name: string): void {
    this.#stores.delete(name);
    this.#claudes.delete(name);
  }

  #register(entry: HostEntry): RegisteredHost {
    return {
      name: entry.name,
      entry,
      host: this.#createHost(entry),
      isDefault: entry.name === this.#defaultName,
    };
  }

  get(name: string): RegisteredHost {
    const found = this.#hosts.get(name);
    if (!found) throw new CatalystError('HOST_NOT_FOUND', `There is no host named ${name}.`);
    return found;
  }

  /** The host's idea store; its root's `~/` is the host user's home, asked for once; claimed (ideas-root-claim.ts). */
  store(name: string): Promise<IdeaStore> {
    const cached = this.#stores.get(name);
    if (cached) return cached;
    const registered = this.get(name);
    const pending = claimIdeasRoot(registered.host, registered.entry.ideasRoot).then(
      (root) => new IdeaStore({ files: registered.host, root }),
    );
    // A host that was down is asked again next time.
    pending.catch(() => this.#stores.delete(name));
    this.#stores.set(name, pending);
    return pending;
  }

  /** The claude binary to run on the host (the configured path, else what the preflight found), and its PATH. */
  claude(name: string): Promise<ClaudeRuntime> {
    const cached = this.#claudes.get(name);
    if (cached) return cached;
    const registered = this.get(name);
    const pending = findClaude(registered);
    pending.catch(() => this.#claudes.delete(name));
    this.#claudes.set(name, pending);
    return pending;
  }

  #closed = false;

  /** True once close() was called: what fails on a host after it is Catalyst stopping, not the host. */
  get isClosed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.all().map((registered) => registered.host.close()));
  }
}

export interface ClaudeRuntime {
  claudePath: string;
  /**
   * The PATH a run gets: claude's own directory first, then the host's. The npm build of the CLI is
   * `#!/usr/bin/env node`, and an nvm or npm-prefix install keeps its `node` beside it, on no PATH that a plain
   * SSH command has (ssh-field-notes.md §9).
   */
  path: string;
}

async function findClaude(registered: RegisteredHost): Promise<ClaudeRuntime> {
  const preflight = await registered.host.preflight();
  const claudePath = registered.entry.claudePath ?? preflight.claudePath;
  if (claudePath === undefined) {
    const why = preflight.problems.join('; ') || 'not on PATH nor in the usual places';
    throw new CatalystError(
      'CLI_NOT_FOUND',
      `The claude CLI was not found on ${registered.host.label}: ${why}`,
    );
  }
  return { claudePath, path: `${posix.dirname(claudePath)}:${preflight.path}` };
}
