#!/usr/bin/env node
// The `catalyst` command. The workspace runs TypeScript source with no build step, so the command bundles its own
// source (with the protocol's, the client package's and their dependencies) into one file beside it,
// dist/catalyst.mjs, on the first run after a change, with esbuild (a third of a second), and runs that: 0.3 s to
// answer `--help` against 1 s through tsx's loader, which compiles every file it imports on each run. The bundle is
// used while what went into it is unchanged: the stamp beside it lists the size and time of each source file, the
// manifests and the lockfile (a few milliseconds to read). Where dist/ cannot be written (a read-only checkout), tsx
// runs the source as before.
//
// Paths come from this file's own URL, which Node resolves through symlinks, so a link on PATH works from any
// directory; the build and tsx are pinned to this package's tsconfig, so a tsconfig.json in the caller's directory
// changes nothing.
import { createHash } from 'node:crypto';
import {
  existsSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsconfig = join(packageDir, 'tsconfig.json');
const bundle = join(packageDir, 'dist', 'catalyst.mjs');
const stampFile = join(packageDir, 'dist', 'catalyst.stamp');

/** What the bundle is made of: this package's, the protocol's and the client's sources, their manifests, the lockfile. */
function stampOfSources() {
  const protocolDir = realpathSync(join(packageDir, 'node_modules', '@catalyst', 'protocol'));
  const clientDir = realpathSync(join(packageDir, 'node_modules', '@catalyst', 'client'));
  const files = [
    join(packageDir, 'package.json'),
    tsconfig,
    join(protocolDir, 'package.json'),
    join(clientDir, 'package.json'),
    join(packageDir, '..', '..', 'pnpm-lock.yaml'),
  ];
  for (const dir of [join(packageDir, 'src'), join(protocolDir, 'src'), join(clientDir, 'src')]) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        files.push(join(entry.parentPath, entry.name));
    }
  }
  const lines = files.map((file) => {
    const { size, mtimeMs } = statSync(file);
    return `${relative(packageDir, file)} ${size} ${mtimeMs}`;
  });
  return createHash('sha256').update(lines.sort().join('\n')).digest('hex');
}

function readStamp() {
  try {
    return readFileSync(stampFile, 'utf8');
  } catch {
    return undefined;
  }
}

/** Bundles the source into dist/ (written aside, then renamed: a run beside this one reads old or new, whole). */
async function buildBundle(stamp) {
  const { build } = await import('esbuild');
  const aside = `${bundle}.${process.pid}`;
  try {
    await build({
      entryPoints: [join(packageDir, 'src', 'main.ts')],
      outfile: aside,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      tsconfig,
      // A dependency that still calls require() (ws does) gets the real one.
      banner: {
        js: "import { createRequire as catalystRequire } from 'node:module';\nconst require = catalystRequire(import.meta.url);",
      },
      logLevel: 'silent',
    });
    renameSync(aside, bundle);
    // The stamp last, written aside too: a run that reads it finds the bundle it names.
    const stampAside = `${stampFile}.${process.pid}`;
    writeFileSync(stampAside, stamp);
    renameSync(stampAside, stampFile);
    return true;
  } catch {
    rmSync(aside, { force: true });
    return false;
  }
}

async function loadEntry() {
  const stamp = stampOfSources();
  if ((readStamp() === stamp && existsSync(bundle)) || (await buildBundle(stamp)))
    return import(pathToFileURL(bundle).href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport('../src/main.ts', { parentURL: import.meta.url, tsconfig });
}

const entry = await loadEntry();
await entry.main(process.argv.slice(2));
