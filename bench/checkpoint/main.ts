/**
 * What a checkpoint adds to the end of a build (issue 13): a project of 10,000 files on the test kit's sshd, then
 * builds that each change 200 of them, with the real claude CLI and the scripted model. For each build, the time
 * from its `claude:result` reaching the client to its `checkpoint:created` (the commit of project/ in git on the
 * host, one round trip through the run wrapper), and, as the baseline in the same run, the same gap to `run:ended`
 * for builds that change nothing (where the checkpoint finds nothing to commit).
 * Human-readable lines first; the last line is one JSON object:
 * {"files":10000,"changed":200,"checkpointMs","wrapperMs","unchangedEndMs","runs"} (p50s over `runs` builds each;
 * wrapperMs is `true` run through the run wrapper over SSH in the same run: the part of a checkpoint that is not git).
 * Goal: checkpointMs < 300. Asserts nothing. Needs root, as the test kit does. Run it with scripts/bench-checkpoint.
 */
import type { ServerFrame } from '../../packages/protocol/src/index.ts';
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite, type Site } from '../shared/bench-catalyst.ts';
import { text, toolUse } from '../../packages/testkit/src/index.ts';
import { createSshHost } from '../../packages/backend/src/host/ssh/ssh-host.ts';
import { runHostCommand } from '../../packages/backend/src/host/host-command.ts';
import { sshHostConfig } from '../../packages/backend/test/ssh-test-kit.ts';

const DIRS = 100;
const FILES_PER_DIR = 100;
const CHANGED = 200;
const RUNS = 7;
const BUILD_TIMEOUT_MS = 300_000;

function p50(values: readonly number[]): number {
  return Math.round(percentile(values, 50) * 10) / 10;
}

interface Gaps {
  toCheckpointMs: number | undefined;
  toEndMs: number;
  filesChanged: number | undefined;
}

/** One build running `command`; the gaps from its result to its checkpoint and to its end, as the client saw them. */
async function build(bench: BenchCatalyst, site: Site, ideaId: string, command: string): Promise<Gaps> {
  site.model.enqueue(
    toolUse('Bash', { command, description: 'Change files', timeout: 600_000 }),
    text('Done.'),
  );
  const seen = new Map<string, { atMs: number; frame: ServerFrame }>();
  const stop = bench.onFrame((frame, atMs) => {
    const isBuildCheckpoint = frame.type === 'checkpoint:created' && frame.kind === 'build';
    if (frame.type === 'claude:result' || isBuildCheckpoint || frame.type === 'run:ended') {
      if ('ideaId' in frame && frame.ideaId === ideaId && !seen.has(frame.type))
        seen.set(frame.type, { atMs, frame });
    }
  });
  const ended = bench.next(
    (frame) => frame.type === 'run:ended' && frame.ideaId === ideaId,
    BUILD_TIMEOUT_MS,
  );
  bench.send({ type: 'build', ideaId, message: 'Change the files.' });
  await ended;
  stop();
  const result = seen.get('claude:result');
  const checkpoint = seen.get('checkpoint:created');
  const end = seen.get('run:ended');
  if (result === undefined || end === undefined) throw new Error('the build ended without a result');
  const created = checkpoint?.frame.type === 'checkpoint:created' ? checkpoint.frame : undefined;
  return {
    toCheckpointMs: checkpoint === undefined ? undefined : checkpoint.atMs - result.atMs,
    toEndMs: end.atMs - result.atMs,
    filesChanged: created?.filesChanged,
  };
}

const MAKE_FILES =
  `for d in $(seq 0 ${String(DIRS - 1)}); do mkdir -p d$d; for f in $(seq 0 ${String(FILES_PER_DIR - 1)}); do ` +
  `echo "file $d $f" > d$d/f$f.txt; done; done`;

function changeFiles(round: number): string {
  return (
    `for f in $(seq 0 ${String(CHANGED - 1)}); do ` +
    `echo "round ${String(round)}" >> d$((f / ${String(FILES_PER_DIR)}))/f$((f % ${String(FILES_PER_DIR)})).txt; done`
  );
}

/** The run wrapper's own round trip over the same SSH connection kind: `true`, as the checkpoint's git is run. */
async function wrapperRoundTrips(site: Site): Promise<number[]> {
  const host = createSshHost(sshHostConfig(site.sshd, 'bash'));
  const times: number[] = [];
  try {
    for (let index = 0; index <= RUNS; index += 1) {
      const startedAt = performance.now();
      await runHostCommand(host, { argv: ['true'], cwd: '/', timeoutMs: 10_000, maxStdoutBytes: 1_024 });
      // The first opens the connection.
      if (index > 0) times.push(performance.now() - startedAt);
    }
  } finally {
    await host.close();
  }
  return times;
}

await withSite(async (site) => {
  const bench = await BenchCatalyst.start(site, {});
  try {
    const ideaId = await bench.createIdea('Checkpoint bench');
    await bench.subscribe(ideaId);
    say(`making ${String(DIRS * FILES_PER_DIR)} files`);
    const first = await build(bench, site, ideaId, MAKE_FILES);
    say(
      `the first build's checkpoint (every file new): ${String(Math.round(first.toCheckpointMs ?? -1))} ms, ${String(first.filesChanged)} files`,
    );
    const changed: number[] = [];
    const unchanged: number[] = [];
    for (let round = 0; round < RUNS; round += 1) {
      const gaps = await build(bench, site, ideaId, changeFiles(round));
      if (gaps.toCheckpointMs === undefined || gaps.filesChanged !== CHANGED) {
        throw new Error(
          `round ${String(round)}: expected a checkpoint of ${String(CHANGED)} files, got ${String(gaps.filesChanged)}`,
        );
      }
      changed.push(gaps.toCheckpointMs);
      const still = await build(bench, site, ideaId, 'true');
      if (still.toCheckpointMs !== undefined)
        throw new Error('a build that changed nothing made a checkpoint');
      unchanged.push(still.toEndMs);
      say(
        `round ${String(round)}: checkpoint ${gaps.toCheckpointMs.toFixed(1)} ms; unchanged build's end ${still.toEndMs.toFixed(1)} ms`,
      );
    }
    const wrapper = await wrapperRoundTrips(site);
    say(`the run wrapper's round trip alone: ${p50(wrapper).toFixed(1)} ms`);
    console.log(
      JSON.stringify({
        files: DIRS * FILES_PER_DIR,
        changed: CHANGED,
        checkpointMs: p50(changed),
        wrapperMs: p50(wrapper),
        unchangedEndMs: p50(unchanged),
        runs: RUNS,
      }),
    );
  } finally {
    await bench.stop();
  }
});
