/**
 * One phase of the preview benchmark (main.ts), in a process of its own so that the load does not share an event
 * loop with the Catalyst under test: `concurrency` workers, each sending GET requests one after the other over a
 * keep-alive connection of its own, for a warm-up and then for a measured spell. Prints one JSON line, a
 * PhaseResult. The phase is given as one JSON argument, a PhaseSpec.
 */
import { Agent, request } from 'node:http';
import { z } from 'zod';
import { loopbackLookup } from '../../packages/backend/test/preview-client.ts';
import { percentile } from '../relay/lines.ts';

export const PhaseSpecSchema = z.strictObject({
  url: z.string(),
  cookie: z.string(),
  concurrency: z.number().int().min(1),
  warmupMs: z.number().int().min(0),
  durationMs: z.number().int().min(1),
});
export type PhaseSpec = z.infer<typeof PhaseSpecSchema>;

export const PhaseResultSchema = z.strictObject({
  requests: z.number(),
  failures: z.number(),
  rps: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  maxMs: z.number(),
});
export type PhaseResult = z.infer<typeof PhaseResultSchema>;

/** A request with no answer this long counts as failed: a stalled forward must end the phase, not hang it. */
const REQUEST_TIMEOUT_MS = 10_000;

/** One request; resolves with its status once the whole body has been read. */
function get(url: URL, agent: Agent, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, headers: { cookie }, lookup: loopbackLookup }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => {
        resolve(response.statusCode ?? 0);
      });
      response.on('error', reject);
    });
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => {
      outgoing.destroy(new Error(`no answer in ${String(REQUEST_TIMEOUT_MS)} ms`));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const url = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const startedAt = performance.now();
  const measureFrom = startedAt + spec.warmupMs;
  const endAt = measureFrom + spec.durationMs;
  const latencies: number[] = [];
  let failures = 0;
  const work = async () => {
    for (let now = performance.now(); now < endAt; now = performance.now()) {
      const status = await get(url, agent, spec.cookie).catch(() => 0);
      const doneAt = performance.now();
      if (now < measureFrom) continue;
      if (status === 200) latencies.push(doneAt - now);
      else failures += 1;
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, work));
  // The last requests end a little after endAt; the spell is measured to the last one.
  const elapsedMs = performance.now() - measureFrom;
  agent.destroy();
  return {
    requests: latencies.length,
    failures,
    rps: (latencies.length / elapsedMs) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: percentile(latencies, 100),
  };
}

if (process.argv[1] === import.meta.filename) {
  const spec = PhaseSpecSchema.parse(JSON.parse(process.argv[2] ?? 'null'));
  console.log(JSON.stringify(await runPhase(spec)));
}
