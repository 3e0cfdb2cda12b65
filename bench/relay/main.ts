/**
 * What Catalyst adds to a line on its way from claude's stdout to the browser, and whether it holds up under load.
 * It starts the test kit's sshd, installs a stand-in claude for the dash test user (stand-in.ts: a
 * system/init line, N assistant text lines at 1,000 lines/s, each carrying its send time, and a result), and runs
 * one Catalyst backend in a child process (backend.ts) whose one host is that sshd, with the stand-in as
 * its claudePath. Its parts are the other files of bench/relay/.
 *   latency  latency.ts: one chat at a time through Catalyst, 5,000 lines, against a raw ssh2 exec of
 *            the same stand-in; added = p50 and p99 differences (differences of percentiles, not paired lines).
 *   load     load.ts: 50 ideas, 50 chats sent at once, 2,000 lines each, 5 WebSocket clients with 10
 *            ideas each; the SSH pool runs at most 8 per connection on at most 4 connections and queues the rest.
 *            Lost = lines each stand-in says it wrote (its result line) minus the distinct ones that arrived.
 *   ideas    ideas.ts: 500 ideas with ~0.5 MB of history each, each opened once (a WebSocket subscribe from 0
 *            that replays it all, then an unsubscribe); then the backend's VmRSS, after a full GC. Goal: < 300 MB
 *            (issue 16 item 10: histories nobody watches are closed, not kept for the life of the process).
 *   memory   the backend's VmHWM (the kernel's own peak RSS) at the end, VmRSS sampled every 50 ms per phase,
 *            and its heap after a full GC; MB = 1e6 B.
 * Beside each phase: wall time, how busy the machine was, the backend's and the bench's CPU, and what sshd logged.
 * The bench prints figures and asserts nothing. Human-readable lines first; the last line is one JSON object:
 * {"addedLatencyP50Ms","addedLatencyP99Ms","concurrentRuns","linesSent","linesLost","rss500IdeasMb","peakRssMb"}.
 * Needs root, as the test kit does. Run it with scripts/bench-relay; it takes a few minutes.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { startBackendProcess, type BackendProcess } from './backend-process.ts';
import { measureBackgroundBusy, percent, withCosts } from './costs.ts';
import { measureManyIdeas, type IdeasFigures } from './ideas.ts';
import { measureLatency, reportLatency } from './latency.ts';
import { LineTally, formatSummary } from './lines.ts';
import { measureLoad, type LoadFigures } from './load.ts';
import type { BenchContext } from './phases.ts';
import { Cleanup, prepareSite, type BenchSite } from './site.ts';

const MB = 1e6;
/** Issue 16 item 10. */
const RSS_GOAL_MB = 300;

const started = performance.now();
function say(line: string): void {
  console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
}

function reportLoad(load: LoadFigures): void {
  const { sent, received, lost, duplicates, outOfOrder, withoutResult } = load.losses;
  say(
    `load: ${load.runs} chats in ${(load.elapsedMs / 1000).toFixed(1)} s, at most ${load.maxConcurrent} running at ` +
      `once; ${sent} lines sent, ${received} received, ${lost} lost, ${duplicates} duplicated, ${outOfOrder} out of ` +
      `order, ${withoutResult} runs without a result`,
  );
  say(`latency under load (no goal; a run's lines count from its start): ${formatSummary(load.latency)}`);
  say(`the stand-ins ran at most ${load.standInMaxLagMs.toFixed(1)} ms behind their schedule`);
}

/** The figure is VmRSS after a full GC: what the backend keeps once every idea was opened and closed. */
async function reportManyIdeas(backend: BackendProcess, ideas: IdeasFigures): Promise<number> {
  say(
    `many ideas: ${ideas.ideas} opened once each in ${(ideas.elapsedMs / 1000).toFixed(1)} s, ` +
      `${ideas.eventsReplayed} events (${ideas.historyMb.toFixed(0)} MB) replayed`,
  );
  const { heapUsed } = await backend.memoryUsage();
  const { rss } = await backend.readRss();
  const verdict = rss / MB < RSS_GOAL_MB ? 'met' : 'MISSED';
  say(
    `backend RSS after ${ideas.ideas} ideas: ${(rss / MB).toFixed(1)} MB (goal < ${RSS_GOAL_MB} MB: ${verdict}), ` +
      `heap after GC ${(heapUsed / MB).toFixed(1)} MB`,
  );
  return rss;
}

/** VmHWM is the figure: the kernel's own peak, which 50 ms samples can only approach. */
async function reportMemory(backend: BackendProcess): Promise<number> {
  const { rss, hwm } = await backend.readRss();
  const usage = await backend.memoryUsage();
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  const verdict = hwm / MB < RSS_GOAL_MB ? 'met' : 'MISSED';
  say(`backend RSS: VmHWM ${mb(hwm)} (goal < ${RSS_GOAL_MB} MB: ${verdict}), now ${mb(rss)}`);
  say(
    `backend heap after a full GC: used ${mb(usage.heapUsed)} of ${mb(usage.heapTotal)}, ` +
      `external ${mb(usage.external)}, RSS ${mb(usage.rss)}`,
  );
  return hwm;
}

async function startBackend(
  site: BenchSite,
  cleanup: Cleanup,
): Promise<{ backend: BackendProcess; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const backend = await startBackendProcess({
    CATALYST_BIND: '127.0.0.1',
    CATALYST_PORT: '0',
    CATALYST_TOKEN: token,
    CATALYST_CONFIG_DIR: site.configDir,
    CATALYST_CONFIG_FILE: site.hostsFile,
    CATALYST_LOG_LEVEL: 'warn',
  });
  cleanup.add('stop the backend', () => backend.stop());
  return { backend, token };
}

async function reportIdle(backend: BackendProcess): Promise<void> {
  const { rss } = await backend.readRss();
  const { heapUsed } = await backend.memoryUsage();
  const load = loadavg().map((value) => value.toFixed(2));
  say(
    `backend pid ${backend.pid} at ${backend.url}, idle: RSS ${(rss / MB).toFixed(1)} MB, heap after GC ` +
      `${(heapUsed / MB).toFixed(1)} MB; load average ${load.join(' ')}`,
  );
}

async function runBench(cleanup: Cleanup): Promise<Record<string, number>> {
  say(`before starting: the machine is ${percent(await measureBackgroundBusy(1000))} busy (2 cores = 100%)`);
  const site = await prepareSite(cleanup);
  say(`sshd on ${site.sshd.host}:${site.sshd.port}, user ${site.user.name}, stand-in ${site.standInPath}`);
  const { backend, token } = await startBackend(site, cleanup);
  await reportIdle(backend);
  const context: BenchContext = {
    url: backend.url,
    token,
    tally: new LineTally(),
    problems: [],
    clients: [],
  };
  cleanup.add('close the WebSocket clients', () => {
    for (const client of context.clients) client.close();
    return Promise.resolve();
  });
  const probes = { backend, sshd: site.sshd, say };
  const latency = await withCosts('latency', probes, () => measureLatency(context, site, cleanup, say));
  reportLatency(latency, say);
  const load = await withCosts('load', probes, () => measureLoad(context, say));
  reportLoad(load);
  const ideas = await withCosts('many ideas', probes, () => measureManyIdeas(context, site, say));
  const rss500Ideas = await reportManyIdeas(backend, ideas);
  const hwm = await reportMemory(backend);
  reportProblems(context, backend);
  return {
    addedLatencyP50Ms: round(latency.relay.p50 - latency.raw.p50, 3),
    addedLatencyP99Ms: round(latency.relay.p99 - latency.raw.p99, 3),
    concurrentRuns: load.runs,
    linesSent: load.losses.sent,
    linesLost: load.losses.lost,
    rss500IdeasMb: round(rss500Ideas / MB, 1),
    peakRssMb: round(hwm / MB, 1),
  };
}

function reportProblems(context: BenchContext, backend: BackendProcess): void {
  const problems = [...context.problems, ...backend.problems()];
  // Still open at this point, unless the server closed them (a client that fell behind gets 4008).
  for (const client of context.clients)
    if (client.failure !== undefined) problems.push(`a WebSocket client stopped: ${client.failure}`);
  if (context.tally.strays > 0) problems.push(`${context.tally.strays} lines or results of no known run`);
  say(problems.length === 0 ? 'no problems seen' : `${problems.length} problems seen, the first 20:`);
  for (const problem of problems.slice(0, 20)) say(`  ${problem}`);
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

const cleanup = new Cleanup();
let interruption: string | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interruption = signal;
    console.error(`${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  });
}
let figures: Record<string, number> | undefined;
try {
  figures = await runBench(cleanup);
} catch (error) {
  // After a signal, the cleanup itself pulls the ground from under the bench: that failure is no news.
  if (interruption === undefined) console.error(error);
  process.exitCode = 1;
} finally {
  const failures = await cleanup.runAll();
  for (const failure of failures) console.error(`cleanup failed: ${failure}`);
}
if (figures !== undefined) console.log(JSON.stringify(figures));
