import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { waitUntil, type ScriptedModel, type TempDir } from '@catalyst/testkit';
import {
  restartService,
  startService,
  startServiceFixture,
  stopServiceFixture,
  type ServiceFixture,
  type ServiceUnderTest,
} from '../../backend/test/service-harness.ts';
import { loginLink } from '../../backend/src/auth/routes-login.ts';
import {
  restartInProcessService,
  startInProcessFixture,
  startInProcessService,
  stopInProcessFixture,
  type InProcessFixture,
} from '../../backend/test/support/in-process-host/in-process-service.ts';
import { buildApp } from './app-build.ts';
import { findStackTraces, saveScreenshot, watchPage, type PageProblems } from './page-problems.ts';

/**
 * Browser tests against the real thing: the production build of the web app, served by a whole Catalyst (the
 * test kit's sshd as the VM, the real claude CLI, the scripted model), driven by Debian's Chromium. Never a
 * downloaded browser: scripts/setup installs `chromium` with apt. A file about what the page does with what the
 * CLI prints runs its Catalyst on the in-process host instead (`useBrowserSuite({ host: 'in-process' })`: the
 * same page, service and script, no sshd and no claude process); what a person meets first (a chat, a build, a
 * question, the terminal, hosts, a restart) stays on the VM with the real CLI.
 *
 * `useBrowserSuite` registers the file's hooks: build and start once per file (the browser once per worker);
 * after each test a screenshot of its last page (`artifacts/screenshots/<file>-<test>.png`), then the checks every
 * page must pass (no uncaught error, no console error, no stack trace on screen) and no scripted reply left unused.
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/**
 * One Chromium per test worker, shared by the browser files the worker runs one after another (the end-to-end tier
 * shares a worker's modules between its files: vitest.config.ts): a launch costs about 2 CPU-s here, and every test
 * has contexts of its own anyway (openPage). Nothing closes it: Playwright ends the browser it launched when the
 * worker exits, and Chromium ends by itself when its pipe to the worker closes. A browser that crashed is launched
 * again for the next file.
 */
let workerBrowser: Promise<Browser> | undefined;

function sharedBrowser(): Promise<Browser> {
  workerBrowser ??= chromium
    .launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
    .then((launched) => {
      launched.on('disconnected', () => (workerBrowser = undefined));
      return launched;
    })
    .catch((error: unknown) => {
      workerBrowser = undefined;
      throw error;
    });
  return workerBrowser;
}

/** How long one step may wait for the page: runs of the real CLI over SSH take seconds, not minutes. */
const STEP_TIMEOUT_MS = 20_000;
const DESKTOP = { width: 1200, height: 900, isMobile: false, hasTouch: false };

export interface PageOptions {
  /** Where the page is loaded from; the backend's own origin unless a test puts a proxy in between. */
  origin?: string;
  /** The Catalyst the page is loaded from and logged in to: the fixture's unless a test started another. */
  catalyst?: ServiceUnderTest;
  /** Console errors the test causes on purpose (e.g. the 401 of a page that is not logged in). */
  expectedConsole?: readonly RegExp[];
  /** The device the context emulates; a 1200×900 desktop window unless a test asks for another. */
  device?: { width: number; height: number; isMobile: boolean; hasTouch: boolean };
  /** The User-Agent the context sends (a phone's, say); Chromium's own unless given. */
  userAgent?: string;
  /** Whether the page may register its service worker: only for the tests of what it does (install, push). */
  serviceWorkers?: 'allow' | 'block';
}

/** What a browser test drives: the Catalyst serving the page and the model behind its claude. */
export interface BrowserFixture {
  service: ServiceUnderTest;
  readonly model: ScriptedModel;
}

export interface BrowserSuite<F extends BrowserFixture = ServiceFixture> {
  readonly fixture: F;
  /** The production build of the web app the fixture serves (for a Catalyst a test starts itself). */
  readonly appDir: string;
  /** A fresh browser context (no cookie) and a blank page in it. */
  openPage(options?: PageOptions): Promise<Page>;
  /** A page logged in through the printed link (`/login#token=…`), showing the ideas list. */
  openLoggedInPage(options?: PageOptions): Promise<Page>;
  /**
   * A restarted backend: a new Catalyst on the fixture's config dir, ideas and web app (or the one at `staticDir`:
   * an upgrade) becomes `fixture.service` (the caller stops the old one first, as a restart would).
   */
  restartService(options?: { staticDir?: string }): Promise<ServiceUnderTest>;
  /**
   * Another Catalyst serving the web app, on the fixture's VM, user and claude, with settings of its own (`env`,
   * e.g. CATALYST_SSH_CONFIG_FILE); stopped after the test, its config dir and ideas removed.
   */
  startAnother(options: { env: Record<string, string> }): Promise<ServiceUnderTest>;
}

interface OpenedPage {
  page: Page;
  context: BrowserContext;
  problems: PageProblems;
}

/** Where the suite's Catalyst runs: its start, a restart, another beside it, its end. */
interface Backend<F extends BrowserFixture> {
  start(staticDir: string): Promise<F>;
  restart(fixture: F, staticDir: string): Promise<ServiceUnderTest>;
  another(fixture: F, options: { env: Record<string, string>; staticDir: string }): Promise<ServiceUnderTest>;
  stop(fixture: F): Promise<void>;
}

const ON_THE_VM: Backend<ServiceFixture> = {
  start: (staticDir) => startServiceFixture({ staticDir }),
  restart: (fixture, staticDir) => restartService(fixture, staticDir),
  another: ({ sshd, claudePath }, { env, staticDir }) =>
    startService({ sshd, user: sshd.users.bash, claudePath, env, staticDir }),
  stop: stopServiceFixture,
};

const IN_PROCESS: Backend<InProcessFixture> = {
  start: (staticDir) => startInProcessFixture({ staticDir }),
  restart: (fixture, staticDir) => restartInProcessService(fixture, staticDir),
  another: ({ vm }, { env, staticDir }) => startInProcessService(vm, { env, staticDir }),
  stop: stopInProcessFixture,
};

export function useBrowserSuite(): BrowserSuite;
export function useBrowserSuite(options: { host: 'in-process' }): BrowserSuite<InProcessFixture>;
export function useBrowserSuite(
  options: { host?: 'in-process' } = {},
): BrowserSuite | BrowserSuite<InProcessFixture> {
  return options.host === 'in-process' ? browserSuite(IN_PROCESS) : browserSuite(ON_THE_VM);
}

function browserSuite<F extends BrowserFixture>(backend: Backend<F>): BrowserSuite<F> {
  let app: TempDir | undefined;
  let fixture: F | undefined;
  let browser: Browser | undefined;
  let opened: OpenedPage[] = [];
  /** Stops each other Catalyst a test started and removes what it kept. */
  const others: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: ./scripts/setup installs Debian's chromium`);
    app = await buildApp();
    fixture = await backend.start(app.path);
    browser = await sharedBrowser();
  }, 180_000);

  afterEach(async (context) => {
    const pages = opened;
    opened = [];
    const last = pages.at(-1);
    if (last !== undefined && !last.page.isClosed()) {
      const file = basename(context.task.file.name).replace(/\.test\.ts$/, '');
      await saveScreenshot(last.page, file, context.task.name);
    }
    const stackTraces: string[] = [];
    for (const { page, context: browserContext } of pages) {
      if (!page.isClosed()) stackTraces.push(...(await findStackTraces(page)));
      await browserContext.close();
    }
    await Promise.all(others.splice(0).map((stop) => stop()));
    const leftoverRuns = fixture === undefined ? [] : await cancelLeftoverRuns(fixture);
    expect(stackTraces, 'a stack trace on screen').toEqual([]);
    expect(
      pages.flatMap(({ problems }) => problems.seen),
      'errors in the page',
    ).toEqual([]);
    expect(leftoverRuns, 'runs the test left going (cancelled now)').toEqual([]);
    // Dropped either way: a reply one test left would answer the next test's first request.
    expect(fixture?.model.discardReplies(), 'the test left scripted replies unused').toBe(0);
  });

  afterAll(async () => {
    // The browser stays for the worker's next file, without a context of this one's (afterEach closed each test's).
    await Promise.all(browser?.contexts().map((context) => context.close()) ?? []);
    browser = undefined;
    if (fixture !== undefined) await backend.stop(fixture);
    await app?.remove();
  });

  const suite: BrowserSuite<F> = {
    get fixture() {
      if (fixture === undefined) throw new Error('the browser suite has not started');
      return fixture;
    },
    get appDir() {
      if (app === undefined) throw new Error('the browser suite has not started');
      return app.path;
    },
    async openPage(options = {}) {
      if (browser === undefined) throw new Error('the browser suite has not started');
      const { width, height, isMobile, hasTouch } = options.device ?? DESKTOP;
      const context = await browser.newContext({
        baseURL: options.origin ?? (options.catalyst ?? suite.fixture.service).catalyst.url,
        viewport: { width, height },
        isMobile,
        hasTouch,
        serviceWorkers: options.serviceWorkers ?? 'block',
        ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
      });
      context.setDefaultTimeout(STEP_TIMEOUT_MS);
      const page = await context.newPage();
      opened.push({ page, context, problems: watchPage(page, options.expectedConsole) });
      return page;
    },
    restartService: (options = {}) => backend.restart(suite.fixture, options.staticDir ?? suite.appDir),
    async startAnother({ env }) {
      const another = await backend.another(suite.fixture, { env, staticDir: suite.appDir });
      others.push(async () => {
        await another.stop();
        await another.configDir.remove();
        await rm(another.ideasRoot, { recursive: true, force: true });
      });
      return another;
    },
    async openLoggedInPage(options = {}) {
      const page = await suite.openPage(options);
      const token = (options.catalyst ?? suite.fixture.service).catalyst.token;
      await page.goto(loginLink('', token));
      await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
      return page;
    },
  };
  return suite;
}

/**
 * Cancels the runs a test left going (one that failed halfway), so the next test starts on a quiet VM; resolves
 * with their titles. Polls: the service announces a run's end only to subscribers.
 */
async function cancelLeftoverRuns(fixture: BrowserFixture): Promise<string[]> {
  const { ideas, runs } = fixture.service.catalyst.services;
  const running = (await ideas.listIdeas()).filter((idea) => idea.running);
  await Promise.all(running.map((idea) => runs.cancelRun(idea.id)));
  await waitUntil(async () => (await ideas.listIdeas()).every((idea) => !idea.running), {
    timeoutMs: 15_000,
    what: 'the leftover runs to end',
  });
  return running.map((idea) => idea.meta?.title ?? idea.id);
}

/** Awaits an event from outside the page (the scripted model's next request) no longer than one page step. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
