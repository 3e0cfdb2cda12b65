/**
 * What a preview's forward costs (issue 14): a tiny app (a 1 KiB body on GET /) started as an idea's preview
 * command on the test kit's sshd, loaded with GET requests from a separate process (load.ts) at the same
 * concurrency two ways in the same run: directly on the VM (the VM is this machine: 127.0.0.1:<previewPort>),
 * and through Catalyst's preview server (its own port and cookie, an SSH direct-tcpip channel per kept connection).
 * The phases alternate, ROUNDS of each, and the medians are taken: the machine is small and noisy.
 * Human-readable lines first; the last line is one JSON object:
 * {"directRps","forwardedRps","ratio","addedP99Ms","directP99Ms","forwardedP99Ms","concurrency","rounds"}
 * (ratio = forwardedRps / directRps; addedP99Ms = forwarded p99 − direct p99).
 * Goals: ratio ≥ 0.5, addedP99Ms < 5. Asserts nothing. Needs root, as the test kit does. Run it with
 * scripts/bench-preview.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { previewFetch } from '../../packages/backend/test/preview-client.ts';
import { PreviewViewSchema, type PreviewView } from '../../packages/protocol/src/index.ts';
import { freePort } from '../../packages/testkit/src/index.ts';
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite, type Site } from '../shared/bench-catalyst.ts';
import { PhaseResultSchema, type PhaseResult, type PhaseSpec } from './load.ts';

const CONCURRENCY = 16;
const ROUNDS = 3;
const WARMUP_MS = 1_000;
const DURATION_MS = 5_000;
const BODY_BYTES = 1_024;
const RUNNING_TIMEOUT_MS = 20_000;
const PHASE_SLACK_MS = 30_000;
const LOAD = fileURLToPath(new URL('./load.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Run by the VM's plain node as the preview command; PORT is set by Catalyst.
const APP = `'use strict';
const body = Buffer.alloc(${String(BODY_BYTES)}, 'x');
require('node:http')
  .createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
    response.end(body);
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bench app listening'));
`;

/** The idea's project/ on the VM: <home>/catalyst-e2e-<random>/<id>/project (service-config.ts). */
async function projectDirOf(site: Site, ideaId: string): Promise<string> {
  const home = site.sshd.users.bash.home;
  for (const entry of await readdir(home)) {
    const candidate = join(home, entry, ideaId, 'project');
    if (entry.startsWith('catalyst-e2e-') && existsSync(candidate)) return candidate;
  }
  throw new Error(`no project/ for idea ${ideaId} under ${home}`);
}

async function previewOf(bench: BenchCatalyst, ideaId: string): Promise<PreviewView> {
  const response = await bench.api(`/api/ideas/${ideaId}/preview`);
  return PreviewViewSchema.parse(await response.json());
}

async function startPreview(bench: BenchCatalyst, ideaId: string, port: number): Promise<PreviewView> {
  const patched = await bench.api(`/api/ideas/${ideaId}`, {
    method: 'PATCH',
    body: { previewCommand: 'node app.cjs', previewPort: port },
  });
  if (patched.status !== 200) throw new Error(`PATCH answered ${String(patched.status)}`);
  const started = await bench.api(`/api/ideas/${ideaId}/preview/start`, { method: 'POST' });
  if (started.status !== 200) throw new Error(`preview/start answered ${String(started.status)}`);
  const deadline = performance.now() + RUNNING_TIMEOUT_MS;
  for (;;) {
    const view = await previewOf(bench, ideaId);
    if (view.state === 'running') return view;
    if (view.state !== 'starting' || performance.now() > deadline)
      throw new Error(`the preview is ${view.state}: ${(view.lastOutput ?? []).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Opens the one-time link as a browser would; the preview's cookie, as `name=value`. The link names
 * `p-<random>.localhost`, which browsers resolve to loopback by themselves and Node does not (previewFetch does).
 */
async function enter(url: string): Promise<string> {
  const response = await previewFetch(url);
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 303 || cookie === undefined)
    throw new Error(`the link answered ${String(response.status)}`);
  return cookie;
}

/** One phase in a child process (load.ts). */
async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD, JSON.stringify(spec)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  // load.ts gives up on a request after 10 s; this is for a load process that hangs all the same.
  const timer = setTimeout(() => child.kill('SIGKILL'), spec.warmupMs + spec.durationMs + PHASE_SLACK_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the load process exited with ${String(code ?? signal)}`);
  return PhaseResultSchema.parse(JSON.parse(out.trim().split('\n').at(-1) ?? 'null'));
}

function describe(label: string, result: PhaseResult): string {
  const failed = result.failures === 0 ? '' : `, ${String(result.failures)} failed`;
  return (
    `${label.padEnd(22)} ${Math.round(result.rps).toString().padStart(6)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ` +
    `p99 ${result.p99Ms.toFixed(2)} ms, max ${result.maxMs.toFixed(1)} ms (${String(result.requests)} requests${failed})`
  );
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

const round2 = (value: number) => Math.round(value * 100) / 100;

interface Targets {
  direct: string;
  forwarded: string;
  cookie: string;
}

function phaseOf(url: string, cookie: string, concurrency: number): Promise<PhaseResult> {
  return runPhase({ url, cookie, concurrency, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
}

/** ROUNDS of each way at CONCURRENCY, alternating; each way goes first in turn, so neither always runs second. */
async function alternate(targets: Targets): Promise<{ direct: PhaseResult[]; forwarded: PhaseResult[] }> {
  const results = { direct: [] as PhaseResult[], forwarded: [] as PhaseResult[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (['direct', 'forwarded'] as const) : (['forwarded', 'direct'] as const);
    for (const way of order) {
      const result = await phaseOf(targets[way], targets.cookie, CONCURRENCY);
      results[way].push(result);
      say(describe(`round ${String(round + 1)} ${way}`, result));
    }
  }
  return results;
}

async function measure(targets: Targets): Promise<void> {
  // One request at a time first: what the forward adds to a request on an idle machine.
  const aloneDirect = await phaseOf(targets.direct, targets.cookie, 1);
  say(describe('direct, one at a time', aloneDirect));
  const aloneForwarded = await phaseOf(targets.forwarded, targets.cookie, 1);
  say(describe('forwarded, one at a time', aloneForwarded));
  const { direct, forwarded } = await alternate(targets);
  const directRps = median(direct.map((result) => result.rps));
  const forwardedRps = median(forwarded.map((result) => result.rps));
  const directP99Ms = median(direct.map((result) => result.p99Ms));
  const forwardedP99Ms = median(forwarded.map((result) => result.p99Ms));
  say(
    `medians at ${String(CONCURRENCY)} at once: direct ${Math.round(directRps).toString()} req/s, p99 ` +
      `${directP99Ms.toFixed(2)} ms; forwarded ${Math.round(forwardedRps).toString()} req/s, p99 ` +
      `${forwardedP99Ms.toFixed(2)} ms; one at a time the forward adds ` +
      `${(aloneForwarded.p50Ms - aloneDirect.p50Ms).toFixed(2)} ms at p50`,
  );
  console.log(
    JSON.stringify({
      directRps: Math.round(directRps),
      forwardedRps: Math.round(forwardedRps),
      ratio: round2(forwardedRps / directRps),
      addedP99Ms: round2(forwardedP99Ms - directP99Ms),
      directP99Ms: round2(directP99Ms),
      forwardedP99Ms: round2(forwardedP99Ms),
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
    }),
  );
}

await withSite(async (site) => {
  const bench = await BenchCatalyst.start(site, {});
  let ideaId: string | undefined;
  let ideasRoot: string | undefined;
  try {
    ideaId = await bench.createIdea('Preview bench');
    const projectDir = await projectDirOf(site, ideaId);
    ideasRoot = dirname(dirname(projectDir));
    await writeFile(join(projectDir, 'app.cjs'), APP);
    const port = await freePort();
    const view = await startPreview(bench, ideaId, port);
    if (view.url === undefined || view.origin === undefined) throw new Error('a running preview has a link');
    const cookie = await enter(view.url);
    say(`preview running: app on 127.0.0.1:${String(port)} on the VM, forwarded at ${view.origin}`);
    await measure({ direct: `http://127.0.0.1:${String(port)}/`, forwarded: `${view.origin}/`, cookie });
  } finally {
    try {
      // Deleting the idea stops its preview (no process is left) and removes its folder.
      if (ideaId !== undefined) await bench.api(`/api/ideas/${ideaId}`, { method: 'DELETE' });
    } finally {
      await bench.stop();
      // The ideas root (service-config.ts) is this bench's alone.
      if (ideasRoot !== undefined) await rm(ideasRoot, { recursive: true, force: true });
    }
  }
});
