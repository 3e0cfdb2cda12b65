import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { buildIdPlugin } from './build/build-id-plugin.ts';
import { serviceWorkerPlugin } from './build/service-worker-plugin.ts';

// The web app. `vite build` writes dist/, which the backend serves from the same origin (scripts/start).
// `vite` (pnpm --filter @catalyst/frontend dev) serves it with hot reload and forwards /api, /ws and the logins'
// POST /login and POST /pair to a backend started by scripts/start on 127.0.0.1:7433 (CATALYST_DEV_BACKEND to point
// elsewhere). The links `GET /login#token=…` and `GET /pair#code=…` are the app's own pages, so Vite serves them.
const backend = process.env['CATALYST_DEV_BACKEND'] ?? 'http://127.0.0.1:7433';

export default defineConfig({
  // The service worker (sw.js, offline.html) is written by the production build only; the dev server has none.
  plugins: [
    react(),
    buildIdPlugin(),
    serviceWorkerPlugin({ entry: fileURLToPath(new URL('src/sw/sw.ts', import.meta.url)) }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // Rollup drops misplaced `/*#__PURE__*/` comments inside dependencies (zod) and says so at length on every
      // build; that is the dependency's business, not a warning about the app.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return;
        warn(warning);
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy: {
      // The Host header is kept (no changeOrigin): the backend accepts a page whose Origin matches the Host it
      // was asked for, which here is Vite's own.
      '/api': { target: backend },
      '/login': {
        target: backend,
        bypass: (request) => (request.method === 'POST' ? undefined : '/index.html'),
      },
      '/pair': {
        target: backend,
        bypass: (request) => (request.method === 'POST' ? undefined : '/index.html'),
      },
      '/ws': { target: backend.replace(/^http/, 'ws'), ws: true },
    },
  },
});
