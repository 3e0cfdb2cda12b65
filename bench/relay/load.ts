/**
 * The load phase of bench/relay/main.ts: LOAD_RUNS ideas, one chat each, all sent at once to one backend, their
 * frames spread over LOAD_CLIENTS WebSocket clients. Counts every idea's claude:text frames by index, and how many
 * runs were between run:started and run:ended at once (the SSH pool queues what it cannot start).
 */
import type { ServerFrame } from '../../packages/protocol/src/index.ts';
import { summarize, type LatencySummary, type TagTally } from './lines.ts';
import {
  chatThroughCatalyst,
  countLosses,
  createIdea,
  openBenchClient,
  type BenchContext,
  type LossCount,
} from './phases.ts';
import type { RelayClient } from './ws-client.ts';

const LOAD_RUNS = 50;
const LOAD_LINES = 2000;
const LOAD_CLIENTS = 5;
const CREATE_CONCURRENCY = 8;
/** For all runs together, queueing included. */
const LOAD_TIMEOUT_MS = 150_000;

export interface LoadFigures {
  readonly runs: number;
  readonly losses: LossCount;
  readonly latency: LatencySummary;
  readonly elapsedMs: number;
  readonly maxConcurrent: number;
  readonly standInMaxLagMs: number;
}

export async function measureLoad(context: BenchContext, say: (line: string) => void): Promise<LoadFigures> {
  const ideaIds = await createIdeas(context, LOAD_RUNS);
  const concurrency = trackConcurrency();
  const clientOf = await subscribeAll(context, ideaIds, concurrency.onFrame);
  say(`load: ${ideaIds.length} ideas created and subscribed on ${LOAD_CLIENTS} clients; starting every chat`);
  const startedAt = performance.now();
  const endings = await Promise.allSettled(
    ideaIds.map((ideaId, index) =>
      chatThroughCatalyst(context, clientOf(index), {
        ideaId,
        tag: `load-${index}`,
        lines: LOAD_LINES,
        timeoutMs: LOAD_TIMEOUT_MS,
      }),
    ),
  );
  const elapsedMs = performance.now() - startedAt;
  for (const ending of endings)
    if (ending.status === 'rejected') context.problems.push(`load: ${String(ending.reason)}`);
  const tallies = ideaIds.flatMap((_, index) => context.tally.get(`load-${index}`) ?? []);
  return {
    runs: ideaIds.length,
    losses: countLosses(tallies),
    latency: summarize(tallies.flatMap((tally) => tally.latenciesMs)),
    elapsedMs,
    maxConcurrent: concurrency.max(),
    standInMaxLagMs: Math.max(0, ...tallies.map((tally: TagTally) => tally.result?.maxLagMs ?? 0)),
  };
}

/** LOAD_CLIENTS clients, idea k on client k mod LOAD_CLIENTS; returns which client has idea k. */
async function subscribeAll(
  context: BenchContext,
  ideaIds: readonly string[],
  onFrame: (frame: ServerFrame) => void,
): Promise<(index: number) => RelayClient> {
  const clients: RelayClient[] = [];
  for (let index = 0; index < LOAD_CLIENTS; index++) clients.push(await openBenchClient(context, onFrame));
  const clientOf = (index: number): RelayClient => {
    const client = clients[index % clients.length];
    if (client === undefined) throw new Error('no WebSocket client');
    return client;
  };
  await Promise.all(ideaIds.map((ideaId, index) => clientOf(index).subscribe(ideaId)));
  return clientOf;
}

async function createIdeas(context: BenchContext, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let first = 0; first < count; first += CREATE_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(CREATE_CONCURRENCY, count - first) }, (_, offset) =>
      createIdea(context, `Relay load ${String(first + offset)}`),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/**
 * Runs between run:started (their channel is open) and claude:result (their stand-in is done): a little less than
 * they hold a pool slot, which they free at the channel's close. run:ended is no end mark here: it follows the
 * run's bookkeeping on the VM, by when the next run may have taken the slot. Each idea is subscribed on exactly
 * one client, so every frame is seen once.
 */
function trackConcurrency() {
  const running = new Set<string>();
  let max = 0;
  return {
    onFrame: (frame: ServerFrame) => {
      if (frame.type === 'run:started') running.add(frame.ideaId);
      else if (frame.type === 'claude:result' || frame.type === 'run:ended') running.delete(frame.ideaId);
      max = Math.max(max, running.size);
    },
    max: () => max,
  };
}
