import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { createTempDir, type TempDir } from '@catalyst/testkit';

/**
 * The web app exactly as it ships: `vite build` of packages/frontend, which the backend serves. Built once per
 * content: the output is kept under the system's temp dir, named by a digest of everything that goes into it
 * (the web app's and the protocol's sources, the Vite config, the lockfile), so the browser test files of a run,
 * and of the runs after it, share one build (issue 26) and a change to any input builds anew.
 */

export const frontendRoot = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const INPUTS = [
  'packages/frontend/src',
  'packages/frontend/index.html',
  'packages/frontend/vite.config.ts',
  'packages/frontend/package.json',
  'packages/protocol/src',
  'packages/protocol/package.json',
  'pnpm-lock.yaml',
];
const CACHE_PREFIX = 'catalyst-web-build-';
/** A finished build has this file; a folder without it is a build cut short. */
const COMPLETE = '.complete';
/** Builds of other content older than this are removed when a new one is kept. */
const STALE_MS = 3_600_000;

export async function buildApp(): Promise<TempDir> {
  const key = await digestInputs();
  const kept = join(tmpdir(), `${CACHE_PREFIX}${key}`);
  if (await isComplete(kept)) return keptDir(kept);
  const outDir = await createTempDir('web-build');
  try {
    await viteBuild(outDir.path);
    await writeFile(join(outDir.path, COMPLETE), '');
    await rename(outDir.path, kept);
  } catch (error) {
    await outDir.remove();
    // Another process kept the same build meanwhile: use it.
    if (await isComplete(kept)) return keptDir(kept);
    throw error;
  }
  await removeStaleBuilds(kept);
  return keptDir(kept);
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
  for (const name of await readdir(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith(CACHE_PREFIX) || path === kept) continue;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}
