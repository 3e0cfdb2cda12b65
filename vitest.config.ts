import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine. The end-to-end files
 * spend part of their time waiting on real processes (claude, sshd, Chromium, timers), so two or more run well side
 * by side even there; four at most, so a big machine does not start dozens of sshds and browsers at once. One more
 * than the cores was measured and is worse: three workers on this 2-core machine (a fresh clone's `.ci/run`) took
 * the tests 1,255 s against 1,224 s with two, the files' own time 2,849 s against 1,918 s, and a restart test ran
 * past its 60 s limit: the tier is CPU-bound, and a third worker only makes each file wait for the cores.
 */
const WORKERS = Math.min(4, Math.max(2, availableParallelism()));

/**
 * Test files that replace a module (vi.mock): they need a module registry of their own. Every other file of the pure
 * tiers shares its worker's (isolate: false): importing zod, React and the protocol once per worker, not once per
 * file, makes `unit` 15 s instead of 54 and `web` 12 s instead of 64 here. A file that mocks a module and is not
 * listed fails (the module it mocks was loaded before by another file): list it here.
 */
const MOCKS_A_MODULE = ['packages/frontend/src/transcript/Transcript.errors.test.tsx'];

// The projects: `unit` is pure and fast (beside the code, src/**/*.test.ts), `web` the web app's in a simulated
// DOM; `e2e` drives real processes (the claude CLI, shells, sshd, Chromium) from each package's test/ folder.
export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['packages/frontend/**', '**/node_modules/**', ...MOCKS_A_MODULE],
          environment: 'node',
          isolate: false,
        },
      },
      {
        // The web app's pure code and components, in a simulated DOM (a document of its own for each file).
        test: {
          name: 'web',
          include: ['packages/frontend/src/**/*.test.{ts,tsx}'],
          exclude: ['**/node_modules/**', ...MOCKS_A_MODULE],
          environment: 'jsdom',
          isolate: false,
        },
      },
      {
        test: {
          name: 'web-isolated',
          include: MOCKS_A_MODULE.filter((file) => file.startsWith('packages/frontend/')),
          environment: 'jsdom',
        },
      },
      {
        // A whole Catalyst on the in-process host (backend/test/support/in-process-host): no sshd, no claude
        // process, so what the service does with what the CLI prints is proven in milliseconds.
        test: {
          name: 'fast',
          include: ['packages/backend/test/fast/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          // Inactivity limits and restarts take real seconds here too.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['packages/*/test/**/*.test.ts'],
          exclude: ['packages/backend/test/fast/**', '**/node_modules/**'],
          environment: 'node',
          // Files run in several workers at once; each worker has VM users, a HOME and a TMPDIR of its own
          // (testkit/src/worker.ts), so two files never share sessions, runs or claude's settings.
          setupFiles: ['packages/testkit/src/worker-setup.ts'],
          // The files of a worker share its module registry, as the pure tiers do: the backend, the test kit and
          // Playwright are imported once per worker instead of once per file, and the browser files of a worker
          // share its Chromium (frontend/test/browser-harness.ts). So each file stops what it starts (its afterAll),
          // and sets no process-wide state it does not put back: the next file of the worker runs in the same
          // process. Measured on this 2-core machine, the whole vitest run (every tier, two workers): one registry
          // per file 1,302 s wall and 2,371 CPU-s (imports summed over the files 243 s); a shared registry 1,229 s
          // and 2,261 CPU-s (imports 47 s); and Chromium shared too, 1,162 s and 2,111 CPU-s; all 2,254 tests
          // passing in each. (Measured once before, with the tier as it was then, a shared registry had gained
          // nothing: 1,306 s against 1,321 s.)
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
