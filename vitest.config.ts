import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine. The end-to-end files
 * spend most of their time waiting on real processes (claude, sshd, Chromium, timers), so two or more run well side
 * by side even there; four at most, so a big machine does not start dozens of sshds and browsers at once.
 */
const WORKERS = Math.min(4, Math.max(2, availableParallelism()));

// Two projects: `unit` is pure and fast (beside the code, src/**/*.test.ts); `e2e` drives real processes
// (the claude CLI, shells, sshd) from each package's test/ folder.
export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['packages/frontend/**', '**/node_modules/**'],
          environment: 'node',
        },
      },
      {
        // The web app's pure code and components, in a simulated DOM.
        test: {
          name: 'web',
          include: ['packages/frontend/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['packages/*/test/**/*.test.ts'],
          environment: 'node',
          // Files run in several workers at once; each worker has VM users, a HOME and a TMPDIR of its own
          // (testkit/src/worker.ts), so two files never share sessions, runs or claude's settings.
          setupFiles: ['packages/testkit/src/worker-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
