import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { sharedTmpDir } from '@catalyst/testkit';

/**
 * A fixture a test runs as a process of its own (a Catalyst it SIGKILLs, a backend it freezes), as one ES module
 * that plain `node` runs: the workspace's TypeScript bundled by esbuild, the npm packages imported from
 * packages/backend/node_modules as they are. Started through tsx's loader instead, each such process compiled or
 * read back and linked some 290 modules first: 3.1 CPU-seconds for a Catalyst here, against 0.8 bundled, and the
 * suite starts dozens. The same source runs; `scripts/start` and the tests of the real entry still go through tsx.
 *
 * Bundled once per test file's process (a third of a second) and kept by content in the system's temp dir, as the
 * web app's build is (frontend/test/app-build.ts), so that the test workers of a run share one file and a changed
 * source makes another; nothing is written into the checkout. Beside the bundles, `node_modules` links to the
 * backend's, where node looks up the packages the bundle imports.
 */

const backendDir = fileURLToPath(new URL('..', import.meta.url));
/** One folder per checkout: its `node_modules` link leads to that checkout's packages. */
const cacheDir = join(
  sharedTmpDir(),
  `catalyst-fixtures-${createHash('sha256').update(backendDir).digest('hex').slice(0, 12)}`,
);
/** Bundles of other content older than this are removed when a new one is written. */
const STALE_MS = 3_600_000;

/**
 * Every npm package the workspace's packages depend on stays an import, resolved from the bundle's place as from
 * ours; only the workspace's own (`@catalyst/…`, TypeScript source) is bundled.
 */
function npmPackages(): string[] {
  const names = new Set<string>();
  for (const dir of [backendDir, join(backendDir, '..', 'protocol'), join(backendDir, '..', 'testkit')]) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
      if (!name.startsWith('@catalyst/')) names.add(name);
    }
  }
  return [...names];
}

const bundles = new Map<string, string>();

/** The path of the bundled `entry` (an absolute .ts path), for `node <it> <args…>`. */
export function bundledFixture(entry: string): string {
  const known = bundles.get(entry);
  if (known !== undefined) return known;
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    outfile: join(cacheDir, 'out.mjs'),
    external: npmPackages(),
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  const name = basename(entry).replace(/\.ts$/, '');
  const digest = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
  const file = join(cacheDir, `${name}-${digest}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    linkPackages();
    // Written aside and renamed: a worker that finds the name finds the whole file.
    const partial = `${file}.${String(process.pid)}.partial`;
    writeFileSync(partial, output.contents);
    renameSync(partial, file);
    removeStale(name, file);
  }
  bundles.set(entry, file);
  return file;
}

/** `<cacheDir>/node_modules` → the backend's; made once, by whichever worker comes first. */
function linkPackages(): void {
  try {
    symlinkSync(join(backendDir, 'node_modules'), join(cacheDir, 'node_modules'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function removeStale(name: string, kept: string): void {
  const cutoff = Date.now() - STALE_MS;
  for (const entry of readdirSync(cacheDir)) {
    const path = join(cacheDir, entry);
    if (path === kept || !entry.startsWith(`${name}-`)) continue;
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // Removed by another worker meanwhile.
    }
  }
}
