/**
 * Autopilots at scale (issue 12): 20 ideas, each given a 5-step build autopilot at once through one Catalyst, with
 * the real claude CLI on the test kit's sshd and the scripted model answering every step at once. First, as the
 * baseline in the same process, one idea's autopilot alone. Measures:
 *   completed     steps that ended `completed` (the AutopilotViews read back over REST at the end);
 *   lost          steps that did not;
 *   stepGapP50Ms  p50, over the 80 step boundaries, of the time from one step's `run:ended` frame to the next
 *                 step's first frame from its claude (any `claude:*`), as the WebSocket client sees them. Split in
 *                 two: launchP50Ms, to the next step's `run:started` (the autopilot's loop and the run's launch,
 *                 Catalyst's own part), and the rest, the warm claude taking the turn and answering;
 *   peakRssMb     the peak resident memory of this process, which holds the Catalyst (and the small client);
 *   catalystCpuMsPerStep  this process's CPU time (user + system) over the round, per step: what Catalyst itself
 *                 spends, whatever the claude processes on the VM cost.
 * Human-readable lines first; the last line is one JSON object:
 * {"ideas":20,"steps":100,"completed","lost","stepGapP50Ms","peakRssMb","launchP50Ms","soloStepGapP50Ms",
 * "catalystCpuMsPerStep"}.
 * Goals: all complete, stepGapP50Ms < 50 (warm sessions), peakRssMb < 400. On a machine where the VM is this
 * machine, the 20 claude processes share its cores with Catalyst: compare with the solo figure. Asserts nothing.
 * Needs root, as the test kit does. Run it with scripts/bench-autopilot (`--ideas N` for another count).
 */
import { parseArgs } from 'node:util';
import type { ServerFrame } from '../../packages/protocol/src/index.ts';
import { AutopilotResponseSchema, type AutopilotView } from '../../packages/protocol/src/index.ts';
import { text } from '../../packages/testkit/src/index.ts';
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite, type Site } from '../shared/bench-catalyst.ts';

const IDEAS = Number(parseArgs({ options: { ideas: { type: 'string', default: '20' } } }).values.ideas);
const STEPS = 5;
const AUTOPILOT_TIMEOUT_MS = 600_000;

/** Per idea: its runs in the order they started, and when each started, ended, and was first heard from. */
interface IdeaTimes {
  runs: string[];
  startedAt: Map<string, number>;
  endedAt: Map<string, number>;
  heardAt: Map<string, number>;
}

function recordTimes(bench: BenchCatalyst, ideaIds: readonly string[]): Map<string, IdeaTimes> {
  const ideas = new Map<string, IdeaTimes>();
  for (const id of ideaIds)
    ideas.set(id, { runs: [], startedAt: new Map(), endedAt: new Map(), heardAt: new Map() });
  bench.onFrame((frame, atMs) => {
    const ideaId = 'ideaId' in frame ? frame.ideaId : undefined;
    const times = ideaId === undefined ? undefined : ideas.get(ideaId);
    if (times === undefined || !('runId' in frame) || frame.runId === undefined) return;
    if (frame.type === 'run:started') {
      times.runs.push(frame.runId);
      times.startedAt.set(frame.runId, atMs);
    }
    if (frame.type === 'run:ended') times.endedAt.set(frame.runId, atMs);
    if (frame.type.startsWith('claude:') && !times.heardAt.has(frame.runId))
      times.heardAt.set(frame.runId, atMs);
  });
  return ideas;
}

/** Per step boundary: from one step's end to the next step's start (`to: startedAt`) or first claude frame. */
function gapsOf(ideas: ReadonlyMap<string, IdeaTimes>, to: 'startedAt' | 'heardAt'): number[] {
  const gaps: number[] = [];
  for (const times of ideas.values()) {
    for (let index = 1; index < times.runs.length; index += 1) {
      const ended = times.endedAt.get(times.runs[index - 1] ?? '');
      const next = times[to].get(times.runs[index] ?? '');
      if (ended !== undefined && next !== undefined) gaps.push(next - ended);
    }
  }
  return gaps;
}

const p50 = (values: readonly number[]): number => Math.round(percentile(values, 50) * 10) / 10;

function watchRss(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round((Math.max(peak, process.memoryUsage().rss) / 2 ** 20) * 10) / 10;
    },
  };
}

async function runAutopilot(bench: BenchCatalyst, ideaId: string): Promise<AutopilotView> {
  const ended = bench.next(
    (frame: ServerFrame) => frame.type === 'autopilot:ended' && frame.ideaId === ideaId,
    AUTOPILOT_TIMEOUT_MS,
  );
  // Plain messages: a `/name` the CLI does not know is answered by the CLI itself, without the model.
  const steps = Array.from({ length: STEPS }, (_, index) => ({
    mode: 'build' as const,
    message: `Execute phase ${String(index + 1)}.`,
  }));
  const response = await bench.api(`/api/ideas/${ideaId}/autopilot`, { method: 'POST', body: { steps } });
  if (response.status !== 202) throw new Error(`autopilot refused: ${await response.text()}`);
  await ended;
  const read = await bench.api(`/api/ideas/${ideaId}/autopilot`);
  return AutopilotResponseSchema.parse(await read.json()).autopilot;
}

interface Round {
  views: AutopilotView[];
  ideas: Map<string, IdeaTimes>;
}

/** `count` new ideas, opened (subscribed) as a person would, then an autopilot on each, all at once. */
async function runRound(bench: BenchCatalyst, site: Site, count: number): Promise<Round> {
  const ideaIds = await Promise.all(
    Array.from({ length: count }, (_, index) => bench.createIdea(`Autopilot ${String(index)}`)),
  );
  for (const ideaId of ideaIds) await bench.subscribe(ideaId);
  const ideas = recordTimes(bench, ideaIds);
  // Every step is one model request answered with text, whichever idea's request comes first.
  for (let index = 0; index < count * STEPS; index += 1) site.model.enqueue(text('Step done.'));
  const progress = setInterval(() => {
    const all = [...ideas.values()];
    const ended = all.reduce((sum, times) => sum + times.endedAt.size, 0);
    say(`${String(ended)} of ${String(count * STEPS)} steps ended`);
  }, 10_000);
  try {
    const views = await Promise.all(ideaIds.map((ideaId) => runAutopilot(bench, ideaId)));
    for (const view of views.filter((each) => each.state !== 'completed'))
      say(`${view.ideaId} ended ${view.state}: ${JSON.stringify(view.error)}`);
    return { views, ideas };
  } finally {
    clearInterval(progress);
  }
}

await withSite(async (site) => {
  // Every idea keeps its claude waiting between steps: the warm turns the gap goal is about.
  const bench = await BenchCatalyst.start(site, { CATALYST_WARM_PER_HOST: String(IDEAS + 1) });
  try {
    const solo = await runRound(bench, site, 1);
    const soloStepGapP50Ms = p50(gapsOf(solo.ideas, 'heardAt'));
    say(`one autopilot alone: step gap p50 ${String(soloStepGapP50Ms)} ms`);

    const rss = watchRss();
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    say(`${String(IDEAS)} autopilots of ${String(STEPS)} build steps each, at once …`);
    const round = await runRound(bench, site, IDEAS);
    const peakRssMb = rss.stop();
    const cpu = process.cpuUsage(cpuBefore);
    say(`all ended in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);

    const steps = round.views.flatMap((view) => view.steps);
    const completed = steps.filter((step) => step.state === 'completed').length;
    const gaps = gapsOf(round.ideas, 'heardAt');
    const launchP50Ms = p50(gapsOf(round.ideas, 'startedAt'));
    const stepGapP50Ms = p50(gaps);
    say(
      `${String(gaps.length)} step gaps: p50 ${String(stepGapP50Ms)} ms (launch ${String(launchP50Ms)} ms), ` +
        `p90 ${percentile(gaps, 90).toFixed(1)} ms, max ${Math.max(...gaps).toFixed(1)} ms`,
    );
    const lost = steps.length - completed;
    say(
      `goals: all complete ${lost === 0 ? 'met' : 'MISSED'}, step gap p50 < 50 ms ` +
        `${stepGapP50Ms < 50 ? 'met' : 'MISSED'}, peak RSS < 400 MB ${peakRssMb < 400 ? 'met' : 'MISSED'}`,
    );
    const figures = { ideas: IDEAS, steps: steps.length, completed, lost, stepGapP50Ms, peakRssMb };
    const catalystCpuMsPerStep = Math.round((cpu.user + cpu.system) / 1000 / steps.length);
    console.log(JSON.stringify({ ...figures, launchP50Ms, soloStepGapP50Ms, catalystCpuMsPerStep }));
  } finally {
    await bench.stop();
  }
});
