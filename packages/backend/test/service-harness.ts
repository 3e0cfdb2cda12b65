import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { IdeaViewSchema, type IdeaView, type RelayEvent, type ServerFrame } from '@catalyst/protocol';
import {
  installSharedClaude,
  startScriptedModel,
  startSshd,
  writeClaudeSettings,
  type ScriptedModel,
  type SshdHandle,
  type TempDir,
} from '@catalyst/testkit';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createHostFromEntry, startCatalyst, type RunningCatalyst, type StartOptions } from '../src/app.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import type { SshPoolLimits } from '../src/host/ssh/ssh-config.ts';
import { loadConfig } from '../src/server/config.ts';
import { scanRunProcessesIn } from './host-test-kit.ts';
import { prepareService, type ServiceOptions } from './service-config.ts';
import { openClient, type TestClient } from './server-ws-client.ts';

/**
 * A whole Catalyst for end-to-end tests: port 0, its own config dir, one SSH host (the test kit's sshd, as a test
 * user whose claude points at the scripted model), and helpers to drive it as a browser would.
 */
export interface ServiceUnderTest {
  readonly catalyst: RunningCatalyst;
  readonly configDir: TempDir;
  /** Absolute, on the VM: `<user's home>/catalyst-e2e-…`. */
  readonly ideasRoot: string;
  api(path: string, init?: RequestInit): Promise<Response>;
  createIdea(title: string): Promise<IdeaView>;
  connect(): Promise<IdeaClient>;
  projectDir(ideaId: string): string;
  /** What the service logged so far (info and up), one JSON line each: to check what is never logged. */
  logText(): string;
  stop(): Promise<void>;
}

export type { ServiceOptions };

export async function startService(options: ServiceOptions): Promise<ServiceUnderTest> {
  const { configDir, ideasRoot, env } = await prepareService(options);
  const config = loadConfig(env, { homeDir: configDir.path });
  const logged: string[] = [];
  const catalyst = await startCatalyst({
    config,
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
    ...(options.staticDir === undefined ? {} : { staticDir: options.staticDir }),
    ...(options.push === undefined ? {} : { push: options.push }),
    ...(options.pool === undefined ? {} : { createHost: withPool(options.pool, configDir.path) }),
  });
  return serviceUnderTest(catalyst, { configDir, ideasRoot, logged });
}

/** The helpers of a test around a started Catalyst (its API with its token, a WebSocket client, its log). */
export function serviceUnderTest(
  catalyst: RunningCatalyst,
  where: { configDir: TempDir; ideasRoot: string; logged: string[] },
): ServiceUnderTest {
  const { configDir, ideasRoot, logged } = where;
  const headers = { authorization: `Bearer ${catalyst.token}` };
  const api = (path: string, init: Omit<RequestInit, 'headers'> = {}) =>
    fetch(`${catalyst.url}${path}`, { ...init, headers: { ...headers, 'content-type': 'application/json' } });
  return {
    catalyst,
    configDir,
    ideasRoot,
    api,
    async createIdea(title) {
      const response = await api('/api/ideas', {
        method: 'POST',
        body: JSON.stringify({ title, description: 'e2e' }),
      });
      if (response.status !== 201)
        throw new Error(`create failed: ${response.status} ${await response.text()}`);
      return z.object({ idea: IdeaViewSchema }).parse(await response.json()).idea;
    },
    async connect() {
      return new IdeaClient(await openClient(`${catalyst.url.replace('http', 'ws')}/ws`, { headers }));
    },
    projectDir: (ideaId) => join(ideasRoot, ideaId, 'project'),
    logText: () => logged.join(''),
    stop: () => catalyst.close(),
  };
}

/** A browser-like client: every frame kept in order, and ways to await the ones a test needs. */
export class IdeaClient {
  readonly frames: ServerFrame[] = [];
  readonly #client: TestClient;
  readonly #waiters = new Set<{
    predicate: (frame: ServerFrame) => boolean;
    resolve: (frame: ServerFrame) => void;
  }>();

  constructor(client: TestClient) {
    this.#client = client;
    void this.#pump();
  }

  send(frame: unknown): void {
    this.#client.send(frame);
  }

  /** The next frame (past or future) that matches, counting from `fromIndex`. */
  waitFor(predicate: (frame: ServerFrame) => boolean, fromIndex = 0): Promise<ServerFrame> {
    const seen = this.frames.slice(fromIndex).find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.add({ predicate, resolve }));
  }

  async subscribe(ideaId: string, sinceSeq?: number): Promise<void> {
    const from = this.frames.length;
    this.send({ type: 'subscribe', ideaId, ...(sinceSeq === undefined ? {} : { sinceSeq }) });
    await this.waitFor((f) => f.type === 'subscribed' && f.ideaId === ideaId, from);
  }

  /** Sends a chat or build and resolves with every event of that run, once its `run:ended` arrives. */
  async run(ideaId: string, mode: 'chat' | 'build', message: string): Promise<RelayEvent[]> {
    const from = this.frames.length;
    this.send({ type: mode, ideaId, message });
    const started = await this.waitFor((f) => f.type === 'run:started' && f.ideaId === ideaId, from);
    return this.untilEnded(started);
  }

  async untilEnded(started: ServerFrame): Promise<RelayEvent[]> {
    const runId = 'runId' in started ? started.runId : undefined;
    await this.waitFor((f) => f.type === 'run:ended' && f.runId === runId);
    return this.events().filter((event) => event.runId === runId);
  }

  /** The relay events (what has a `seq`): not errors, acknowledgements or live-only text deltas. */
  events(): RelayEvent[] {
    return this.frames.flatMap((frame) => ('seq' in frame ? [frame] : []));
  }

  /** Settles when the connection closes, by either side, with its close code. */
  get closed(): Promise<{ code: number; reason: string }> {
    return this.#client.closed;
  }

  close(): void {
    this.#client.socket.close();
  }

  async #pump(): Promise<void> {
    for (;;) {
      let frame: ServerFrame;
      try {
        frame = await this.#client.next();
      } catch {
        return;
      }
      this.frames.push(frame);
      for (const waiter of this.#waiters) {
        if (waiter.predicate(frame)) {
          this.#waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    }
  }
}

/** What every service e2e file starts once: a VM (sshd), the scripted model its claude talks to, and Catalyst. */
export interface ServiceFixture {
  sshd: SshdHandle;
  model: ScriptedModel;
  claudePath: string;
  service: ServiceUnderTest;
}

export async function startServiceFixture(
  options: Pick<ServiceOptions, 'staticDir'> = {},
): Promise<ServiceFixture> {
  const [sshd, model, claudePath] = await Promise.all([
    startSshd(),
    startScriptedModel(),
    installSharedClaude(),
  ]);
  await writeClaudeSettings(sshd.users.bash, model.url);
  const service = await startService({ ...options, sshd, user: sshd.users.bash, claudePath });
  return { sshd, model, claudePath, service };
}

/**
 * The service e2e files' shared set-up, registered as the file's hooks: one fixture started before the file's
 * tests and stopped after them; after each test, the extra Catalysts it started are stopped and no scripted reply
 * may be left unused. Its fields read the fixture of this moment (use them inside tests and hooks).
 */
export interface ServiceSuite {
  readonly sshd: SshdHandle;
  readonly model: ScriptedModel;
  /** The claude the VM's user runs (a copy every test user can reach). */
  readonly claudePath: string;
  readonly service: ServiceUnderTest;
  /**
   * Another Catalyst on the same VM, user and claude: other settings (`env`), or the same config dir and ideas as
   * `service` (`reuse`: a restarted backend). Stopped after the test.
   */
  startAnother(
    options?: Pick<ServiceOptions, 'env' | 'reuse' | 'push' | 'pool'> & Partial<Pick<ServiceOptions, 'user'>>,
  ): Promise<ServiceUnderTest>;
  /**
   * A restarted backend: a new Catalyst on `service`'s config dir and ideas becomes `service` (the caller stops the
   * old one first, as a crash or a restart would have).
   */
  restartService(): Promise<ServiceUnderTest>;
  /**
   * What the idea's runs left running on the VM: processes carrying a run tag, working in the idea's folder. Empty
   * once every run of the idea is over and cleaned up.
   */
  runProcesses(
    ideaId: string,
    on?: ServiceUnderTest,
  ): Promise<{ pid: number; cmdline: string; runTag: string }[]>;
}

export function useServiceFixture(): ServiceSuite {
  let fixture: ServiceFixture | undefined;
  /** Stops each other Catalyst a test started, and removes its config dir and ideas unless it reused the fixture's. */
  const extra: (() => Promise<void>)[] = [];
  const started = (): ServiceFixture => {
    if (fixture === undefined) throw new Error('the service fixture is used before its beforeAll ran');
    return fixture;
  };

  beforeAll(async () => {
    fixture = await startServiceFixture();
  }, 120_000);
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((cleanUp) => cleanUp()));
    // Dropped either way: a reply one test left would answer the next test's first request.
    expect(started().model.discardReplies(), 'the test left scripted replies unused').toBe(0);
  });
  afterAll(async () => {
    if (fixture !== undefined) await stopServiceFixture(fixture);
  });

  return {
    get sshd() {
      return started().sshd;
    },
    get model() {
      return started().model;
    },
    get claudePath() {
      return started().claudePath;
    },
    get service() {
      return started().service;
    },
    async startAnother(options = {}) {
      const { sshd, claudePath } = started();
      const another = await startService({ user: sshd.users.bash, ...options, sshd, claudePath });
      extra.push(async () => {
        await another.stop();
        if (options.reuse !== undefined) return;
        await another.configDir.remove();
        await rm(another.ideasRoot, { recursive: true, force: true });
      });
      return another;
    },
    restartService: () => restartService(started()),
    runProcesses: (ideaId, on) => scanRunProcessesIn(join((on ?? started().service).ideasRoot, ideaId)),
  };
}

/**
 * A restarted backend: a new Catalyst on the fixture's config dir and ideas (and web app, `staticDir`) becomes
 * `fixture.service`. The caller stops the old one first, as a crash or a restart would have.
 */
export async function restartService(fixture: ServiceFixture, staticDir?: string): Promise<ServiceUnderTest> {
  const { configDir, ideasRoot } = fixture.service;
  fixture.service = await startService({
    sshd: fixture.sshd,
    user: fixture.sshd.users.bash,
    claudePath: fixture.claudePath,
    reuse: { configDir, ideasRoot },
    ...(staticDir === undefined ? {} : { staticDir }),
  });
  return fixture.service;
}

/** Stops everything and removes what the run left: the config dir, and the ideas on the VM (this machine). */
export async function stopServiceFixture(fixture: ServiceFixture): Promise<void> {
  await fixture.service.stop();
  await fixture.model.close();
  await fixture.sshd.stop();
  await fixture.service.configDir.remove();
  await rm(fixture.service.ideasRoot, { recursive: true, force: true });
}

/** The hosts file's SSH host with these pool limits, listened to as Catalyst listens to its own. */
function withPool(pool: Partial<SshPoolLimits>, configDir: string): NonNullable<StartOptions['createHost']> {
  return (entry, hooks) => {
    if (entry.kind !== 'ssh' || entry.connect.via !== 'fields')
      return createHostFromEntry(entry, { configDir });
    const { address, port, user, privateKeyPath, hostKey } = entry.connect;
    return createSshHost(
      {
        address,
        port,
        user,
        privateKeyPath,
        hostKey,
        pool,
        ...(entry.claudePath === undefined ? {} : { claudePath: entry.claudePath }),
      },
      { onRunChannelShortage: hooks.onRunChannelShortage },
    );
  };
}
