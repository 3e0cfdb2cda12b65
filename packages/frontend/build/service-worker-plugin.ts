import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';
import type { Plugin, Rollup } from 'vite';
import type { ShellManifest } from '../src/sw/cache-rules.ts';
import { OFFLINE_SHELL_TAG } from '../src/shell/offline-shell.ts';
import { BUILD_FILE } from '../src/base/build-check.ts';

/**
 * Writes the service worker into the build: src/sw/sw.ts bundled on its own as a classic script (every browser
 * that has service workers runs those), `sw.js` at the root (its scope is the whole app), with this build's file
 * list and version in place of `__CATALYST_SHELL__`. Also writes `offline.html`: index.html marked as the offline
 * page (src/shell/offline-shell.ts). A new build has a new version, so the browser installs its worker, which
 * fills a new cache and deletes the old one.
 */

const WORKER_FILE = 'sw.js';
const OFFLINE_FILE = 'offline.html';

export function serviceWorkerPlugin(options: { entry: string }): Plugin {
  let publicDir = '';
  return {
    name: 'catalyst-service-worker',
    apply: 'build',
    // After Vite's own plugins: index.html and every chunk are in the bundle, in their final form.
    enforce: 'post',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    async generateBundle(_output, bundle) {
      const files = filesOf(bundle);
      // Read by the server, never by a page (build-id-plugin.ts): nothing for the worker to keep.
      files.delete(BUILD_FILE);
      const index = files.get('index.html');
      if (index === undefined) this.error('the build has no index.html to make the offline page of');
      const offline = markOffline(Buffer.from(index).toString('utf8'));
      this.emitFile({ type: 'asset', fileName: OFFLINE_FILE, source: offline });
      files.set(OFFLINE_FILE, offline);
      if (publicDir !== '') {
        for (const file of await filesUnder(publicDir)) {
          files.set(relative(publicDir, file).split(sep).join('/'), await readFile(file));
        }
      }
      this.emitFile({
        type: 'asset',
        fileName: WORKER_FILE,
        source: await bundleWorker(options.entry, files),
      });
    },
  };
}

function filesOf(bundle: Rollup.OutputBundle): Map<string, string | Uint8Array> {
  const files = new Map<string, string | Uint8Array>();
  for (const [name, output] of Object.entries(bundle)) {
    files.set(name, output.type === 'asset' ? output.source : output.code);
  }
  return files;
}

function markOffline(html: string): string {
  if (!html.includes('</head>')) throw new Error('index.html has no </head> to mark as the offline page');
  return html.replace('</head>', `  ${OFFLINE_SHELL_TAG}\n  </head>`);
}

async function bundleWorker(entry: string, files: ReadonlyMap<string, string | Uint8Array>): Promise<string> {
  const names = [...files.keys()].sort();
  const hash = createHash('sha256');
  for (const name of names)
    hash
      .update(name)
      .update('\0')
      .update(files.get(name) ?? '')
      .update('\0');
  const shell: ShellManifest = {
    version: hash.digest('hex').slice(0, 16),
    files: names.map((name) => `/${name}`),
    offlinePage: `/${OFFLINE_FILE}`,
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
    define: { __CATALYST_SHELL__: JSON.stringify(shell) },
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
