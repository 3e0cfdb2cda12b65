import { isolateWorker } from './worker.ts';

// The e2e project's setup file (vitest.config.ts): runs in each worker before each of its files.
await isolateWorker();
