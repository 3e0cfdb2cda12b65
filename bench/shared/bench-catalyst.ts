import { z } from 'zod';
import type { ServerFrame } from '../../packages/protocol/src/index.ts';
import { IdeaViewSchema } from '../../packages/protocol/src/index.ts';
import { startCatalyst, type RunningCatalyst, type StartOptions } from '../../packages/backend/src/app.ts';
import { loadConfig } from '../../packages/backend/src/server/config.ts';
import { prepareService } from '../../packages/backend/test/service-config.ts';
import { openClient, type TestClient } from '../../packages/backend/test/server-ws-client.ts';
import {
  installSharedClaude,
  startScriptedModel,
  startSshd,
  writeClaudeSettings,
  type ScriptedModel,
  type SshdHandle,
} from '../../packages/testkit/src/index.ts';

/**
 * What the benchmarks that drive a whole Catalyst share (bench/turn, bench/autopilot): the test kit's VM (sshd on
 * loopback, the real claude CLI, the scripted model), a Catalyst in this process on it, and one WebSocket client
 * that hands each frame, as it arrives, to whoever waits for it.
 */

const FRAME_TIMEOUT_MS = 60_000;

export interface Site {
  sshd: SshdHandle;
  model: ScriptedModel;
  claudePath: string;
}

/** Starts the VM; `use` runs with it, and everything is stopped after, whatever happens. */
export async function withSite(use: (site: Site) => Promise<void>): Promise<void> {
  const [sshd, model, claudePath] = await Promise.all([
    startSshd(),
    startScriptedModel(),
    installSharedClaude(),
  ]);
  try {
    await writeClaudeSettings(sshd.users.bash, model.url);
    await use({ sshd, model, claudePath });
  } finally {
    await model.close();
    await sshd.stop();
  }
}

const started = performance.now();
/** A progress line, with the seconds since the benchmark started. */
export function say(line: string): void {
  console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
}

type Waiter = { test: (frame: ServerFrame) => boolean; resolve: (frame: ServerFrame) => void };

export class BenchCatalyst {
  readonly #catalyst: RunningCatalyst;
  readonly #client: TestClient;
  readonly #waiters = new Set<Waiter>();
  readonly #listeners = new Set<(frame: ServerFrame, atMs: number) => void>();

  static async start(
    site: Site,
    env: Record<string, string>,
    options: Pick<StartOptions, 'push'> = {},
  ): Promise<BenchCatalyst> {
    const user = site.sshd.users.bash;
    const prepared = await prepareService({ sshd: site.sshd, user, claudePath: site.claudePath, env });
    const config = loadConfig(prepared.env, { homeDir: prepared.configDir.path });
    // CATALYST_LOG_LEVEL=silent (service-config.ts).
    const catalyst = await startCatalyst({ config, ...options });
    const client = await openClient(`${catalyst.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${catalyst.token}` },
    });
    return new BenchCatalyst(catalyst, client);
  }

  private constructor(catalyst: RunningCatalyst, client: TestClient) {
    this.#catalyst = catalyst;
    this.#client = client;
    void this.#pump();
  }

  /** A browser session, as a login link makes one: the cookie and the key the page sends beside it. */
  async logInAsBrowser(): Promise<Record<string, string>> {
    const origin = this.#catalyst.url;
    const response = await fetch(`${origin}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ token: this.#catalyst.token }),
    });
    const { key } = z.object({ key: z.string() }).parse(await response.json());
    const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    return { cookie, 'x-catalyst-key': key, origin, 'content-type': 'application/json' };
  }

  /** A REST call as that browser (logInAsBrowser's headers); the body is JSON. */
  asBrowser(headers: Record<string, string>, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.#catalyst.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** A REST call with the token; the body is JSON. */
  api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    return fetch(`${this.#catalyst.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${this.#catalyst.token}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  }

  /** A new idea, on `host` or the default host. */
  async createIdea(title: string, host?: string): Promise<string> {
    const response = await this.api('/api/ideas', { method: 'POST', body: { title, host } });
    return z.object({ idea: IdeaViewSchema }).parse(await response.json()).idea.id;
  }

  async subscribe(ideaId: string): Promise<void> {
    const subscribed = this.next((frame) => frame.type === 'subscribed' && frame.ideaId === ideaId);
    this.send({ type: 'subscribe', ideaId });
    await subscribed;
  }

  send(frame: Parameters<TestClient['send']>[0]): void {
    this.#client.send(frame);
  }

  /** The first frame from now on that passes `test`; rejects after `timeoutMs` (a minute). */
  next(test: (frame: ServerFrame) => boolean, timeoutMs = FRAME_TIMEOUT_MS): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('no such frame in time'));
      }, timeoutMs);
      this.#waiters.add({
        test,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      });
    });
  }

  /** Every frame, with the time it arrived (performance.now()), until the returned function is called. */
  onFrame(listener: (frame: ServerFrame, atMs: number) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async stop(): Promise<void> {
    this.#client.socket.close();
    await this.#catalyst.close();
  }

  async #pump(): Promise<void> {
    for (;;) {
      const frame = await this.#client.next().catch(() => undefined);
      if (frame === undefined) return;
      const atMs = performance.now();
      for (const listener of this.#listeners) listener(frame, atMs);
      for (const waiter of this.#waiters) {
        if (!waiter.test(frame)) continue;
        this.#waiters.delete(waiter);
        waiter.resolve(frame);
      }
    }
  }
}
