import type { Host } from '../host/host.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { PreviewServer } from './preview-server.ts';

/** What a preview's server forwards to: a port on the idea's host, held by a listener carrying one of `tags`. */
export interface PreviewTarget {
  host: Host;
  port: number;
  tags: () => readonly string[];
}

export interface PortLinksOptions {
  hosts: HostRegistry;
  locate: (id: string) => Promise<{ host: string }>;
  /** Whether `tag` is the idea's running run's, or its preview's while that is up. */
  isLive: (id: string, tag: string) => boolean;
  startServer: (target: PreviewTarget, onActivity: () => void) => Promise<PreviewServer>;
}

interface PortLink {
  server: PreviewServer;
  /** The run (or preview) whose process listened on the port when the link was made: the link lives as long. */
  tag: string;
  lastActivity: number;
}

/**
 * The servers of port links (issue 14): a port a process of the idea listens on, previewed with a server of its
 * own, one per idea and port. A link serves only while the run (or preview) that listened on the port goes on: it
 * closes when that ends, or when no one has used it for the idle time.
 */
export class PortLinks {
  readonly #options: PortLinksOptions;
  /** By `<idea id>:<port>`. */
  readonly #links = new Map<string, Promise<PortLink>>();

  constructor(options: PortLinksOptions) {
    this.#options = options;
  }

  /** The server for `tag`'s listener on `port`, used now: a link made for an earlier run's is closed first. */
  async serverFor(id: string, port: number, tag: string): Promise<PreviewServer> {
    const key = `${id}:${port}`;
    const existing = await this.#links.get(key)?.catch(() => undefined);
    if (existing !== undefined && existing.tag !== tag) await this.#close(key);
    let pending = this.#links.get(key);
    if (pending === undefined) {
      const { host: hostName } = await this.#options.locate(id);
      const entry: { tag: string; lastActivity: number } = { tag, lastActivity: Date.now() };
      const tags = () => (this.#options.isLive(id, tag) ? [tag] : []);
      const host = this.#options.hosts.get(hostName).host;
      pending = this.#options
        .startServer({ host, port, tags }, () => {
          entry.lastActivity = Date.now();
        })
        .then((server) => Object.assign(entry, { server }));
      pending.catch(() => this.#links.delete(key));
      this.#links.set(key, pending);
    }
    const link = await pending;
    link.lastActivity = Date.now();
    return link.server;
  }

  /** Closes the links no one used since `cutoff`, and those whose run has ended. */
  sweep(cutoff: number): void {
    for (const [key, pending] of this.#links) {
      void pending.then(
        (link) => {
          const isIdle = link.server.inUse() === 0 && link.lastActivity < cutoff;
          // The run that listened on the port has ended: whoever binds the port next must get none of it.
          const hasEnded = !this.#options.isLive(key.slice(0, key.lastIndexOf(':')), link.tag);
          if ((isIdle || hasEnded) && this.#links.get(key) === pending) void this.#close(key);
        },
        () => undefined,
      );
    }
  }

  async closeIdea(id: string): Promise<void> {
    const keys = [...this.#links.keys()].filter((key) => key.startsWith(`${id}:`));
    await Promise.all(keys.map((key) => this.#close(key)));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#links.keys()].map((key) => this.#close(key)));
  }

  async #close(key: string): Promise<void> {
    const pending = this.#links.get(key);
    this.#links.delete(key);
    await pending?.then(
      (link) => link.server.close(),
      () => undefined,
    );
  }
}
