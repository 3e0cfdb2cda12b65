import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layering (docs/architecture.md): protocol imports nothing of ours; backend/src/core is pure (no I/O modules);
// nothing in the product imports the testkit.
const ioModules = [
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'node:http',
  'node:https',
  'ssh2',
  'ws',
  'express',
];

export default tseslint.config(
  // The preview tests' app runs under the VM's plain node (CommonJS, no types).
  { ignores: ['**/node_modules/**', '.tsbuild/**', '**/dist/**', 'packages/backend/test/fixtures/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/protocol/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@catalyst/*', 'node:*'], message: 'protocol is pure: zod only.' }] },
      ],
    },
  },
  {
    files: ['packages/backend/src/**/*.ts'],
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@catalyst/testkit'], message: 'the product never imports the testkit.' }] },
      ],
    },
  },
  {
    // The service layer serves the HTTP and WebSocket edges (server/) and never reaches back into them: what it needs
    // of them (a preview's HTTP server) comes through a port the composition root (app.ts) fills.
    files: [
      'packages/backend/src/service/**/*.ts',
      'packages/backend/src/runs/**/*.ts',
      'packages/backend/src/ideas/**/*.ts',
      'packages/backend/src/host/**/*.ts',
    ],
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@catalyst/testkit'], message: 'the product never imports the testkit.' },
            {
              group: ['../server/*', '../../server/*'],
              message: 'the server layer is an edge: nothing below it imports it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/backend/src/core/**/*.ts'],
    ignores: ['packages/backend/src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ioModules.map((name) => ({ name, message: 'backend core is pure: no I/O.' })),
          patterns: [
            { group: ['@catalyst/testkit'], message: 'the product never imports the testkit.' },
            { group: ['../host/*', '../host/**'], message: 'backend core knows nothing of the host layer.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
