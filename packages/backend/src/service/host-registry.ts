import { posix } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import type { Host } from '../host/host.ts';
import { IdeaStore } from '../ideas/idea-store.ts';
import type { HostEntry } from '../host/host-entry.ts';

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
  readonly #defaultName: string;

  constructor(entries: readonly HostEntry[], defaultName: string, createHost: (entry: HostEntry) => Host) {
    for (const entry of entries) {
      this.#hosts.set(entry.name, {
        name: entry.name,
        entry,
        host: createHost(entry),
        isDefault: entry.name === defaultName,
      });
    }
    if (!this.#hosts.has(defaultName))
      throw new CatalystError('CONFIG_INVALID', `The default host ${defaultName} is not configured.`);
    this.#defaultName = defaultName;
  }

  get defaultName(): string {
    return this.#defaultName;
  }

  all(): RegisteredHost[] {
    return [...this.#hosts.values()];
  }

  get(name: string): RegisteredHost {
    const found = this.#hosts.get(name);
    if (!found) throw new CatalystError('HOST_NOT_FOUND', `There is no host named ${name}.`);
    return found;
  }

  /** The host's idea store; its root's `~/` is the host user's home, asked for once. */
  store(name: string): Promise<IdeaStore> {
    const cached = this.#stores.get(name);
    if (cached) return cached;
    const registered = this.get(name);
    const pending = resolveRoot(registered).then((root) => new IdeaStore({ files: registered.host, root }));
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

  async close(): Promise<void> {
    await Promise.allSettled(this.all().map((registered) => registered.host.close()));
  }
}

async function resolveRoot(registered: RegisteredHost): Promise<string> {
  const root = registered.entry.ideasRoot;
  if (root === '~') return registered.host.homeDir();
  if (root.startsWith('~/')) return posix.join(await registered.host.homeDir(), root.slice(2));
  return root;
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
