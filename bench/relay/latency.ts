/**
 * The latency phase of bench/relay/main.ts: one idea, one chat at a time, each claude:text frame's arrival
 * minus its line's send time, against the same stand-in (same argv, same sshd, same rate) in a bare ssh2 exec
 * read directly. A 500-line warm-up of each path, then LATENCY_ROUNDS rounds of LATENCY_LINES lines, alternating
 * which path goes first. The added latency is p50(Catalyst) − p50(raw) and p99(Catalyst) − p99(raw) over the
 * pooled lines of all rounds: differences of percentiles, since the two paths carry different runs whose lines
 * cannot be paired.
 */
import { parseSshHostConfig } from '../../packages/backend/src/host/ssh/ssh-config.ts';
import { openSshConnection } from '../../packages/backend/src/host/ssh/ssh-connection.ts';
import { formatSummary, summarize, type LatencySummary } from './lines.ts';
import {
  chatRaw,
  chatThroughCatalyst,
  countLosses,
  createIdea,
  openBenchClient,
  type BenchContext,
  type LossCount,
  type RawTarget,
} from './phases.ts';
import type { BenchSite, Cleanup } from './site.ts';

const LATENCY_LINES = 5000;
const LATENCY_ROUNDS = 4;
const WARMUP_LINES = 500;
const LATENCY_RUN_TIMEOUT_MS = 60_000;

export interface LatencyFigures {
  readonly raw: LatencySummary;
  readonly relay: LatencySummary;
  readonly losses: LossCount;
  readonly standInMaxLagMs: number;
}

type Say = (line: string) => void;

export async function measureLatency(
  context: BenchContext,
  site: BenchSite,
  cleanup: Cleanup,
  say: Say,
): Promise<LatencyFigures> {
  const connection = await openSshConnection(await parseSshHostConfig(site.hostConfig).route());
  cleanup.add('close the raw SSH connection', () => {
    connection.end();
    return Promise.resolve();
  });
  const target: RawTarget = { connection, standInPath: site.standInPath, cwd: site.standInDir };
  const ideaId = await createIdea(context, 'Relay latency');
  const client = await openBenchClient(context);
  await client.subscribe(ideaId);
  const relay = (tag: string, lines: number) =>
    chatThroughCatalyst(context, client, { ideaId, tag, lines, timeoutMs: LATENCY_RUN_TIMEOUT_MS });
  // The first run of each path pays for the pool's connection, a cold JIT and cold caches.
  await chatRaw(context, target, 'warm-raw', WARMUP_LINES);
  await relay('warm-relay', WARMUP_LINES);
  const tags: string[] = [];
  for (let round = 1; round <= LATENCY_ROUNDS; round++) {
    const [rawTag, relayTag] = [`raw-${round}`, `relay-${round}`];
    const runRaw = () => chatRaw(context, target, rawTag, LATENCY_LINES);
    const runRelay = () => relay(relayTag, LATENCY_LINES);
    if (round % 2 === 1) await runRaw().then(runRelay);
    else await runRelay().then(runRaw);
    tags.push(rawTag, relayTag);
    reportRound(context, round, [rawTag, relayTag], say);
  }
  return summarizeLatency(context, tags);
}

/** Each round on its own, so the spread between rounds (other work on the machine) is in plain view. */
function reportRound(
  context: BenchContext,
  round: number,
  [rawTag, relayTag]: readonly [string, string],
  say: Say,
): void {
  const [raw, relay] = [rawTag, relayTag].map((tag) => summarize(context.tally.get(tag)?.latenciesMs ?? []));
  if (raw === undefined || relay === undefined) return;
  const first = round % 2 === 1 ? 'raw' : 'Catalyst';
  say(
    `  round ${round} (${first} first): raw p50 ${raw.p50.toFixed(3)} / p99 ${raw.p99.toFixed(3)} ms, Catalyst ` +
      `p50 ${relay.p50.toFixed(3)} / p99 ${relay.p99.toFixed(3)} ms -> added p50 ` +
      `${(relay.p50 - raw.p50).toFixed(3)}, p99 ${(relay.p99 - raw.p99).toFixed(3)} ms`,
  );
}

function summarizeLatency(context: BenchContext, tags: readonly string[]): LatencyFigures {
  const tallies = tags.flatMap((tag) => context.tally.get(tag) ?? []);
  const pooled = (prefix: string) =>
    tags.filter((tag) => tag.startsWith(prefix)).flatMap((tag) => context.tally.get(tag)?.latenciesMs ?? []);
  return {
    raw: summarize(pooled('raw-')),
    relay: summarize(pooled('relay-')),
    losses: countLosses(tallies),
    standInMaxLagMs: Math.max(0, ...tallies.map((tally) => tally.result?.maxLagMs ?? 0)),
  };
}

export function reportLatency(figures: LatencyFigures, say: Say): void {
  say(`latency, raw ssh2 exec (baseline): ${formatSummary(figures.raw)}`);
  say(`latency, through Catalyst:          ${formatSummary(figures.relay)}`);
  say(
    `added by Catalyst: p50 ${(figures.relay.p50 - figures.raw.p50).toFixed(3)} ms, ` +
      `p99 ${(figures.relay.p99 - figures.raw.p99).toFixed(3)} ms (differences of percentiles)`,
  );
  const { sent, lost, duplicates, outOfOrder } = figures.losses;
  say(
    `latency runs: ${sent} lines sent, ${lost} lost, ${duplicates} duplicated, ${outOfOrder} out of order; ` +
      `the stand-in ran at most ${figures.standInMaxLagMs.toFixed(1)} ms behind its schedule`,
  );
}
