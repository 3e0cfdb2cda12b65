import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layering (docs/architecture.md): protocol imports nothing of ours; the backend's core/ folders are pure (no I/O
// modules), its platform (core/, host/) knows nothing of its features, and only its edges import an edge; nothing in
// the product imports the testkit.
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

// The backend's edges (below) and what the rest of the backend may not import.
const backendEdges = [
  'packages/backend/src/server/**',
  'packages/backend/src/auth/**',
  'packages/backend/src/*/edge/**',
  'packages/backend/src/app.ts',
  'packages/backend/src/main.ts',
  'packages/backend/src/index.ts',
  'packages/backend/src/wire-services.ts',
];
const noTestkit = { group: ['@catalyst/testkit'], message: 'the product never imports the testkit.' };
const features = [
  'runs',
  'queue',
  'asides',
  'checkpoints',
  'files',
  'hosts',
  'previews',
  'terminals',
  'auth',
  'push',
];
const noFeatures = {
  group: features.map((name) => `**/${name}/**`),
  message: 'the platform (core/, host/) knows nothing of the features above it.',
};
/** The rules of a pure core/ folder: no I/O module, no edge, nothing of the host layer (and `extra`). */
function pureRules(extra) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: ioModules.map((name) => ({ name, message: 'backend core is pure: no I/O.' })),
        patterns: [
          noTestkit,
          ...noEdges,
          ...extra,
          { group: ['**/host/**'], message: 'backend core knows nothing of the host layer.' },
        ],
      },
    ],
  };
}
const noEdges = [
  {
    group: ['**/server/*', '**/auth/*', '**/edge/*'],
    message: 'an edge: only the edges and app.ts import it.',
  },
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
    // The client package runs in a browser and in Node alike: it takes its sockets from the client using it.
    files: ['packages/client/src/**/*.ts'],
    ignores: ['packages/client/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'ws'], message: 'the client package runs in a browser too: no Node module.' },
            { group: ['@catalyst/testkit'], message: 'the product never imports the testkit.' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['Buffer', 'process', 'require', 'document', 'window', 'location', 'localStorage'].map((name) => ({
          name,
          message: 'the client package runs in a browser and in Node: neither one only.',
        })),
      ],
    },
  },
  {
    files: backendEdges,
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noTestkit] }] },
  },
  {
    // The edges serve HTTP and WebSocket: server/ (the platform of both), auth/, each feature's edge/ (its handlers,
    // sockets and proxies) and the composition root. Nothing else imports them: what a service needs of an edge (a
    // preview's HTTP server) comes through a port the composition root (app.ts) fills.
    files: ['packages/backend/src/**/*.ts'],
    ignores: [...backendEdges, 'packages/backend/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noTestkit, ...noEdges] }],
    },
  },
  {
    files: ['packages/backend/src/host/**/*.ts'],
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noTestkit, ...noEdges, noFeatures] }],
    },
  },
  {
    // A feature's core/ is pure; the platform's core/ is besides below every feature.
    files: ['packages/backend/src/*/core/**/*.ts'],
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: pureRules([]),
  },
  {
    files: ['packages/backend/src/core/**/*.ts'],
    ignores: ['packages/backend/src/**/*.test.ts'],
    rules: pureRules([noFeatures]),
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
