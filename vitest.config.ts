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
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['packages/*/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
