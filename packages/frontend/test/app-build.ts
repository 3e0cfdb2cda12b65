import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { sharedTmpDir, waitUntil, type TempDir } from '@catalyst/testkit';

/**
 * The web app exactly as it ships: `vite build` of packages/frontend, which the backend serves. Built once per
 * content: the output is kept under the system's temp dir (the one all test workers share), named by a digest of
 * everything that goes into it (the web app's and the protocol's sources, the Vite config, the lockfile), so the
 * browser test files of a run, and of the runs after it, share one build (issue 26) and a change to any input
 * builds anew. Files in two workers that need a new build at once: one builds, the other waits for it.
 */

export const frontendRoot = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const INPUTS = [
  'packages/frontend/src',
  'packages/frontend/public',
  'packages/frontend/build',
  'packages/frontend/index.html',
  'packages/frontend/vite.config.ts',
  'packages/frontend/package.json',
  'packages/protocol/src',
  'packages/protocol/package.json',
  'packages/client/src',
  'packages/client/package.json',
  'pnpm-lock.yaml',
];
const CACHE_PREFIX = 'catalyst-web-build-';
/** A finished build has this file; a folder without it is a build cut short. */
const COMPLETE = '.complete';
/** Builds of other content older than this are removed when a new one is kept. */
const STALE_MS = 3_600_000;
/** A build takes well under a minute here; a lock without a builder's pid older than this was left behind. */
const LOCK_STALE_MS = 5 * 60_000;

export async function buildApp(): Promise<TempDir> {
  const key = await digestInputs();
  const kept = join(sharedTmpDir(), `${CACHE_PREFIX}${key}`);
  if (await isComplete(kept)) return keptDir(kept);
  const lock = `${kept}.lock`;
  while (!(await takeLock(lock))) {
    // Another worker builds the same content: wait for it, or take over a lock whose builder has gone.
    await waitUntil(async () => (await isComplete(kept)) || !(await isHeld(lock)), {
      timeoutMs: LOCK_STALE_MS + 10_000,
      intervalMs: 250,
      what: `the web app build in another test worker (${lock})`,
    });
    if (await isComplete(kept)) return keptDir(kept);
    await takeOver(lock);
  }
  try {
    if (!(await isComplete(kept))) await buildInto(kept);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  await removeStaleBuilds(kept);
  return keptDir(kept);
}

/** mkdir is atomic: exactly one of the workers that try at once makes the folder; it then names its builder. */
async function takeLock(lock: string): Promise<boolean> {
  const isMade = await mkdir(lock).then(
    () => true,
    (error: unknown) => {
      if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return false;
      throw error;
    },
  );
  if (isMade) await writeFile(join(lock, 'pid'), String(process.pid));
  return isMade;
}

/**
 * Whether a builder still holds the lock: its process lives (a run cut short by Ctrl-C leaves a lock behind, whose
 * builder is gone). A lock without its pid yet was made a moment ago; past LOCK_STALE_MS it counts as left behind.
 */
async function isHeld(lock: string): Promise<boolean> {
  const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
  if (Number.isInteger(pid) && pid > 0) return isAlive(pid);
  const info = await stat(lock).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs < LOCK_STALE_MS;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/** Moves a lock left behind out of the way: rename is atomic, so of two waiters only one takes it over. */
async function takeOver(lock: string): Promise<void> {
  const aside = `${lock}.${String(process.pid)}.left`;
  if (
    await rename(lock, aside).then(
      () => true,
      () => false,
    )
  )
    await rm(aside, { recursive: true, force: true });
}

/** Builds beside the kept folder and moves it in place; a complete build already there is never replaced. */
async function buildInto(kept: string): Promise<void> {
  const outDir = `${kept}.${String(process.pid)}.tmp`;
  try {
    await viteBuild(outDir);
    await writeFile(join(outDir, COMPLETE), '');
    if (!(await isComplete(kept))) {
      await rm(kept, { recursive: true, force: true });
      await rename(outDir, kept);
    }
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** The kept build is shared: a suite's cleanup leaves it for the next. */
function keptDir(path: string): TempDir {
  return { path, remove: () => Promise.resolve() };
}

async function viteBuild(outDir: string): Promise<void> {
  // vitest sets NODE_ENV=test, which Vite would bake into the bundle (React's development build). The browser
  // tests drive the production build, as ./scripts/start serves it. Nothing else runs while this awaits.
  const nodeEnv = process.env['NODE_ENV'];
  process.env['NODE_ENV'] = 'production';
  try {
    await build({
      root: frontendRoot,
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      mode: 'production',
      build: { outDir, emptyOutDir: true },
      logLevel: 'warn',
    });
  } finally {
    if (nodeEnv === undefined) delete process.env['NODE_ENV'];
    else process.env['NODE_ENV'] = nodeEnv;
  }
}

async function digestInputs(): Promise<string> {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of await filesUnder(join(repoRoot, input))) {
      hash.update(relative(repoRoot, file)).update('\0');
      hash.update(await readFile(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** Every file under `path` (or `path` itself), in a stable order. */
async function filesUnder(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

async function isComplete(dir: string): Promise<boolean> {
  return stat(join(dir, COMPLETE)).then(
    () => true,
    () => false,
  );
}

async function removeStaleBuilds(kept: string): Promise<void> {
  const now = Date.now();
  const dir = sharedTmpDir();
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (!name.startsWith(CACHE_PREFIX) || path === kept || path === `${kept}.lock`) continue;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}
