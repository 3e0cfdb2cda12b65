/**
 * The backend under test for bench/relay/main.ts, in a process of its own so that its RSS can be sampled: the
 * configuration from the environment (loadConfig, as main.ts), startCatalyst, then one JSON line per event on
 * stdout, among the logger's own JSON lines: `{"ready":{"url"}}` once listening, `{"memory":{…}}` (after a full
 * GC) for each `memory` line on stdin. It closes cleanly (runs stopped, histories flushed) when stdin ends, so it also goes when the
 * bench dies, and on SIGTERM.
 */
import { createInterface } from 'node:readline';
import { startCatalyst } from '../../packages/backend/src/app.ts';
import { loadConfig } from '../../packages/backend/src/server/config.ts';

const catalyst = await startCatalyst({ config: loadConfig(process.env) });
console.log(JSON.stringify({ ready: { url: catalyst.url } }));

let closing: Promise<void> | undefined;
function stop(): void {
  closing ??= catalyst.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  // After a full GC (the bench starts this process with --expose-gc): what the backend holds on to.
  if (line !== 'memory') return;
  globalThis.gc?.();
  console.log(JSON.stringify({ memory: process.memoryUsage() }));
});
input.on('close', stop);
process.on('SIGTERM', stop);
