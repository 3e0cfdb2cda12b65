import { randomUUID } from 'node:crypto';
import type { Plugin } from 'vite';
import { BUILD_FILE, BUILD_META } from '../src/base/build-check.ts';

/**
 * Stamps each production build with an id (issue 39): a `<meta name="catalyst-build">` in index.html, which the
 * open page keeps, and `build-id.txt` beside it, which the backend reads and sends on every API answer. A page
 * whose id differs from the server's was served by an older Catalyst and offers a reload.
 */
export function buildIdPlugin(): Plugin {
  const id = `${new Date().toISOString()}-${randomUUID().slice(0, 8)}`;
  return {
    name: 'catalyst-build-id',
    apply: 'build',
    transformIndexHtml() {
      return [{ tag: 'meta', attrs: { name: BUILD_META, content: id }, injectTo: 'head' }];
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: BUILD_FILE, source: `${id}\n` });
    },
  };
}
