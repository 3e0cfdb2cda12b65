import type { ListeningPort, PreviewLogResponse, PreviewState, PreviewView } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { createPreviewOutput, type PreviewOutput } from './core/preview-output.ts';
import type { Host, RunHandle } from '../host/host.ts';
import type { PreviewServer as PreviewProxy } from './preview-server.ts';
import type { ServiceOptions } from '../service/service-options.ts';
import type { ServiceShared } from '../service/service-shared.ts';
import { messageOf } from '../ideas/idea-meta-changes.ts';
import { createListenerGate, findListeners } from './preview-listener.ts';
import { describeExit } from './preview-exit.ts';
import { previewLinks, previewOrigin } from './preview-origin.ts';
import { suggestPreview } from './preview-suggest.ts';
import { PortLinks, type PreviewTarget } from './port-links.ts';

/**
 * Previews (issue 14): per idea, its dev server (`previewCommand` in `project/`, through the run wrapper with a run
 * tag of its own, so everything it starts stops with it) and a preview server on Catalyst's machine that forwards
 * to `previewPort` on the idea's host (previews/edge/preview-proxy.ts). Runs never touch it; a restore restarts it; it
 * stops when the idea is deleted, when Catalyst stops, and after `idleMs` with no request through it and no
 * WebSocket open. A port a running build listens on can be previewed too, with a preview server of its own.
 *
 * The dev server lives on the host as long as Catalyst's channel to it: a lost connection or a Catalyst that
 * stops ends it (the wrapper sees its stdin close), and the preview reads as crashed with why.
 *
 * Only the idea's own processes are reached (issue 25, finding 6; preview-listener.ts): a preview is `running`
 * once a process carrying its tag listens on its port, each connection goes to the address that process holds,
 * and a port link serves only while the run (or preview) that listened on the port goes on: it closes when that
 * ends.
 */

/**
 * The shared parts a preview uses (the owners: the tag of the idea's running run, its session on the host, for the
 * ports it listens on), and the options' previews: where their servers listen (Catalyst's bind address), when they
 * stop unused (CATALYST_PREVIEW_IDLE_MS), and how a preview's own HTTP server starts (previews/edge/preview-proxy.ts).
 */
export type PreviewsOptions = Pick<ServiceShared, 'hosts' | 'logger' | 'locate' | 'owners'> &
  ServiceOptions['previews'];

export const DEFAULT_PREVIEW_IDLE_MS = 3_600_000;
const LOG_BYTES = 256 * 1024;
const READY_POLL_MS = 300;
/** How soon a port link closes after the run that listened on its port has ended. */
const LINK_CHECK_MS = 1_000;
/** The wrapper's backstop; the idle stop comes long before it unless someone keeps using the preview. */
const MAX_PREVIEW_RUNTIME_MS = 7 * 24 * 3_600_000;

interface Preview {
  readonly ideaId: string;
  readonly host: Host;
  readonly command: string;
  readonly port: number;
  state: PreviewState;
  since: string;
  readonly output: PreviewOutput;
  handle?: RunHandle;
  exit?: { code: number | null; signal: string | null };
  proxy?: PreviewProxy;
  isStopping: boolean;
  /** Stopped by a person, the idle stop or a delete: a restore's restart under way does not start it again. */
  isStoppedOnPurpose?: boolean;
  lastActivity: number;
  ended: Promise<void>;
}

export class Previews {
  readonly #options: PreviewsOptions;
  readonly #idleMs: number;
  readonly #previews = new Map<string, Preview>();
  readonly #portLinks: PortLinks;
  readonly #starting = new Map<string, Promise<PreviewView>>();
  /** Ideas being deleted (ids are never reused) and, once Catalyst stops, every idea: no preview starts. */
  readonly #gone = new Set<string>();
  #isClosed = false;
  readonly #idleTimer: NodeJS.Timeout;

  constructor(options: PreviewsOptions) {
    this.#options = options;
    this.#idleMs = options.idleMs ?? DEFAULT_PREVIEW_IDLE_MS;
    this.#portLinks = new PortLinks({
      hosts: options.hosts,
      locate: options.locate,
      isLive: (id, tag) => this.#isLive(id, tag),
      startServer: (target, onActivity) => this.#proxy(target, onActivity),
    });
    this.#idleTimer = setInterval(
      () => {
        this.#stopIdle();
      },
      Math.max(100, Math.min(this.#idleMs / 4, LINK_CHECK_MS)),
    );
    this.#idleTimer.unref();
  }

  /** `requestHost`: the Host the API was reached at, which the preview's link uses too. */
  async view(id: string, requestHost: string | undefined): Promise<PreviewView> {
    const { host, meta } = await this.#options.locate(id);
    const preview = this.#previews.get(id);
    const base = {
      command: meta.previewCommand ?? null,
      port: meta.previewPort ?? null,
    };
    if (preview === undefined) {
      const suggestion =
        meta.previewCommand === undefined ? await suggestPreview(this.#options.hosts, id, host) : undefined;
      return { state: 'stopped', ...base, ...(suggestion === undefined ? {} : { suggestion }) };
    }
    const lastOutput = preview.output.lastLines();
    const { proxy } = preview;
    return {
      state: preview.state,
      ...base,
      ...(preview.state === 'running' && proxy !== undefined
        ? previewLinks(proxy, requestHost, this.#options.bind)
        : {}),
      since: preview.since,
      ...(lastOutput.length === 0 ? {} : { lastOutput }),
      ...(preview.exit === undefined ? {} : { exit: preview.exit }),
    };
  }

  /** One start at a time per idea: a second click while one is on its way gets its answer. */
  start(id: string, requestHost: string | undefined): Promise<PreviewView> {
    const pending = this.#starting.get(id);
    if (pending !== undefined) return pending;
    const starting = this.#start(id, requestHost).finally(() => this.#starting.delete(id));
    this.#starting.set(id, starting);
    return starting;
  }

  async #start(id: string, requestHost: string | undefined): Promise<PreviewView> {
    const { host: hostName, meta } = await this.#options.locate(id);
    const { previewCommand: command, previewPort: port } = meta;
    if (command === undefined || port === undefined) {
      throw new CatalystError(
        'PREVIEW_NOT_CONFIGURED',
        'Set the preview’s command and port first (on the idea page, or PATCH previewCommand and previewPort).',
      );
    }
    const current = this.#previews.get(id);
    // A stop under way (a person's, the idle stop): the new start waits for it to be done.
    if (current?.isStopping === true) await current.ended;
    if (
      current !== undefined &&
      !current.isStopping &&
      (current.state === 'starting' || current.state === 'running')
    ) {
      if (current.command === command && current.port === port) return this.view(id, requestHost);
      await this.#stopNow(id);
    }
    const { hosts } = this.#options;
    const host = hosts.get(hostName).host;
    const project = (await hosts.store(hostName)).paths(id).project;
    const path = await hosts.claude(hostName).then(
      (claude) => claude.path,
      () => undefined,
    );
    if (this.#gone.has(id) || this.#isClosed) {
      throw new CatalystError('IDEA_NOT_FOUND', 'The idea is being deleted, or Catalyst is stopping.');
    }
    const preview: Preview = {
      ideaId: id,
      host,
      command,
      port,
      state: 'starting',
      since: new Date().toISOString(),
      output: createPreviewOutput(LOG_BYTES),
      isStopping: false,
      lastActivity: Date.now(),
      ended: Promise.resolve(),
    };
    this.#previews.set(id, preview);
    try {
      const tags = () => (isUp(preview) && preview.handle !== undefined ? [preview.handle.runTag] : []);
      preview.proxy = await this.#proxy({ host, port, tags }, () => {
        preview.lastActivity = Date.now();
      });
      preview.handle = await host.startRun({
        argv: ['/bin/sh', '-c', command],
        cwd: project,
        env: { PORT: String(port), BROWSER: 'none', ...(path === undefined ? {} : { PATH: path }) },
        limits: { graceMs: 3_000, maxRuntimeMs: MAX_PREVIEW_RUNTIME_MS },
      });
    } catch (error) {
      await preview.proxy?.close();
      delete preview.proxy;
      this.#crash(preview, { code: null, signal: null }, `could not start: ${messageOf(error)}`);
      throw error;
    }
    this.#options.logger.info({ ideaId: id, port, runTag: preview.handle.runTag }, 'preview started');
    preview.ended = this.#follow(preview, preview.handle);
    // Stopped (or its idea deleted) while the command was being started.
    if (preview.isStopping) preview.handle.cancel();
    void this.#waitReady(preview, preview.handle.runTag);
    return this.view(id, requestHost);
  }

  /** After a start on its way, if any: a stop clicked during a start stops what it started. */
  async stop(id: string): Promise<void> {
    await this.#starting.get(id)?.catch(() => undefined);
    const preview = this.#previews.get(id);
    if (preview !== undefined) preview.isStoppedOnPurpose = true;
    await this.#stopNow(id);
  }

  async #stopNow(id: string): Promise<void> {
    const preview = this.#previews.get(id);
    if (preview === undefined) return;
    if (preview.state === 'crashed') {
      preview.state = 'stopped';
      preview.since = new Date().toISOString();
      return;
    }
    if (preview.state === 'starting' || preview.state === 'running') {
      preview.isStopping = true;
      preview.handle?.cancel();
    }
    await preview.ended;
  }

  /** After a checkpoint restore: the project's files changed under the dev server. */
  async restartIfRunning(id: string): Promise<void> {
    const preview = this.#previews.get(id);
    if (preview === undefined || (preview.state !== 'starting' && preview.state !== 'running')) return;
    await this.#stopNow(id);
    if (preview.isStoppedOnPurpose === true || this.#previews.get(id) !== preview) return;
    try {
      await this.start(id, undefined);
    } catch (error) {
      this.#options.logger.warn({ ideaId: id, err: error }, 'could not restart the preview after a restore');
    }
  }

  log(id: string): PreviewLogResponse {
    return this.#previews.get(id)?.output.text() ?? { text: '', isCut: false };
  }

  /** The TCP ports the idea's running run and its preview listen on, on its host. */
  async ports(id: string): Promise<ListeningPort[]> {
    const found = await this.#listeners(id);
    const ports = new Map<number, ListeningPort>();
    for (const { port, source } of found) if (!ports.has(port)) ports.set(port, { port, source });
    return [...ports.values()].sort((a, b) => a.port - b.port);
  }

  /** The listeners of the idea's live run and preview, each with its tag. */
  async #listeners(id: string): Promise<(ListeningPort & { tag: string })[]> {
    const { host: hostName } = await this.#options.locate(id);
    const preview = this.#previews.get(id);
    const previewTag = preview !== undefined && isUp(preview) ? preview.handle?.runTag : undefined;
    const runTag = this.#options.owners.of(id).runTag();
    const tags = [previewTag, runTag].filter((tag): tag is string => tag !== undefined);
    const found = await findListeners(this.#options.hosts.get(hostName).host, tags);
    return found.map(({ tag, port }) => ({ tag, port, source: tag === previewTag ? 'preview' : 'run' }));
  }

  /**
   * A one-time link to a preview of `port`, which a process of the idea must listen on; it serves as long as that
   * process's run (or preview) goes on.
   */
  async portLink(
    id: string,
    port: number,
    requestHost: string | undefined,
  ): Promise<{ url: string; origin: string }> {
    const holder = (await this.#listeners(id)).find((candidate) => candidate.port === port);
    if (holder === undefined) {
      throw new CatalystError(
        'PREVIEW_PORT_NOT_LISTENING',
        `No process of this idea listens on port ${port} of its host now.`,
      );
    }
    const preview = this.#previews.get(id);
    const own = preview?.port === port && preview.state === 'running' ? preview.proxy : undefined;
    const proxy = own ?? (await this.#portLinks.serverFor(id, port, holder.tag));
    const origin = previewOrigin(proxy, requestHost, this.#options.bind);
    return { url: `${origin}${proxy.mintEntry(origin)}`, origin };
  }

  /** Whether `tag` is the idea's running run's, or its preview's while that is up. */
  #isLive(id: string, tag: string): boolean {
    const preview = this.#previews.get(id);
    return (
      this.#options.owners.of(id).runTag() === tag ||
      (preview !== undefined && isUp(preview) && preview.handle?.runTag === tag)
    );
  }

  /** The idea is being deleted, or Catalyst stops: its preview and port previews go. */
  async forget(id: string): Promise<void> {
    this.#gone.add(id);
    await this.stop(id);
    this.#previews.delete(id);
    await this.#portLinks.closeIdea(id);
  }

  async stopAll(): Promise<void> {
    this.#isClosed = true;
    clearInterval(this.#idleTimer);
    await Promise.all([...this.#previews.keys()].map((id) => this.forget(id)));
    await this.#portLinks.closeAll();
  }

  #proxy(target: PreviewTarget, onActivity: () => void): Promise<PreviewProxy> {
    return this.#options.startServer({
      bind: this.#options.bind,
      port: target.port,
      openUpstream: createListenerGate(target),
      isCatalystToken: this.#options.isCatalystToken,
      onActivity,
      logger: this.#options.logger,
    });
  }

  async #follow(preview: Preview, handle: RunHandle): Promise<void> {
    const read = async (stream: AsyncIterable<Uint8Array>) => {
      for await (const chunk of stream) preview.output.push(chunk);
    };
    await Promise.all([read(handle.stdout), read(handle.stderr)]);
    const outcome = await handle.outcome;
    await preview.proxy?.close();
    delete preview.proxy;
    if (preview.isStopping) {
      preview.state = 'stopped';
      preview.since = new Date().toISOString();
      delete preview.exit;
      this.#options.logger.info({ ideaId: preview.ideaId }, 'preview stopped');
      return;
    }
    const { exit, note } = describeExit(outcome);
    this.#crash(preview, exit, note);
  }

  #crash(preview: Preview, exit: { code: number | null; signal: string | null }, note?: string): void {
    if (note !== undefined) preview.output.push(new TextEncoder().encode(`\n[Catalyst: ${note}]\n`));
    preview.state = 'crashed';
    preview.exit = exit;
    preview.since = new Date().toISOString();
    this.#options.logger.info({ ideaId: preview.ideaId, exit }, 'preview crashed');
  }

  /**
   * `starting` until a process of the preview's own listens on its port, as long as the command runs: a connection
   * to the port would also be answered by another user's listener (issue 25, finding 6).
   */
  async #waitReady(preview: Preview, tag: string): Promise<void> {
    for (let attempt = 0; isStarting(preview); attempt++) {
      try {
        const listeners = await findListeners(preview.host, [tag]);
        if (listeners.some((listener) => listener.port === preview.port)) {
          if (isStarting(preview)) {
            preview.state = 'running';
            preview.since = new Date().toISOString();
            preview.lastActivity = Date.now();
          }
          return;
        }
      } catch (error) {
        this.#options.logger.info({ ideaId: preview.ideaId, err: error }, 'a preview readiness probe failed');
      }
      // Every 0.3 s for the first 30 s (a dev server is usually up by then), then every 2 s.
      await new Promise((resolve) => setTimeout(resolve, attempt < 100 ? READY_POLL_MS : 2_000));
    }
  }

  #stopIdle(): void {
    const cutoff = Date.now() - this.#idleMs;
    for (const preview of this.#previews.values()) {
      const isViewed = (preview.proxy?.inUse() ?? 0) > 0;
      // A command that never listens on its port is stopped too, idle since it started.
      const isUp = preview.state === 'running' || preview.state === 'starting';
      if (isUp && !preview.isStopping && !isViewed && preview.lastActivity < cutoff) {
        this.#options.logger.info({ ideaId: preview.ideaId }, 'preview idle: stopping it');
        void this.stop(preview.ideaId);
      }
    }
    this.#portLinks.sweep(cutoff);
  }
}

/** A function, not an inline test: the state changes across the awaits of #waitReady. */
function isStarting(preview: Preview): boolean {
  return preview.state === 'starting' && !preview.isStopping;
}

/** Starting or running, and not being stopped: its processes are the idea's preview. */
function isUp(preview: Preview): boolean {
  return (preview.state === 'starting' || preview.state === 'running') && !preview.isStopping;
}
