import { defineConfig } from 'vitest/config';

// Two projects: `unit` is pure and fast (beside the code, src/**/*.test.ts); `e2e` drives real processes
// (the claude CLI, shells, sshd) from each package's test/ folder.
export default defineConfig({
  test: {
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
          // One file at a time: the files share the sshd test users' homes, and their timings (leases, grace
          // periods) are honest only when two cores are not shared with another file's real processes.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
