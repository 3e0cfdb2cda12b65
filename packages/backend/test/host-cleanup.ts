import type { ChildProcessByStdio } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitUntil } from '@catalyst/testkit';
import type { RunLimits } from '../src/host/host.ts';
import { expectNothingLeft, reapRuns, watchRun, type HostTestContext } from './host-test-kit.ts';
import { awaitCommand, expectNoCommandLeft, killCommands } from './untagged-processes.ts';

/**
 * Cleanup proofs (ssh-field-notes.md §3c): a job that leaves an `&` child, a `setsid` grandchild and a loop that
 * ignores TERM, stopped every way a run can end. Each proof scans the host's processes, never trusts events.
 */

export interface BackendFixtureInput {
  shell?: string;
  readyText: string;
  spec: {
    argv: string[];
    cwd: string;
    limits: Required<Pick<RunLimits, 'leaseMs' | 'graceMs' | 'maxRuntimeMs'>>;
  };
}

export interface HostCleanupContext extends HostTestContext {
  /**
   * Starts a stand-in backend in its own process that runs `input` on this kind of host and prints one line
   * `{"runTag":"…"}` once the job printed `readyText` (fixtures/backend-run.ts). Omitted: the backend-killed and
   * backend-frozen proofs are skipped.
   */
  spawnBackend?: (input: BackendFixtureInput) => ChildProcessByStdio<null, Readable, Readable>;
}

export type HostCleanupSetup = () => Promise<HostCleanupContext>;

export const CLEANUP_LIMITS = { leaseMs: 3000, graceMs: 1000, maxRuntimeMs: 60_000 } as const;

/** `&` child, setsid'd grandchild, a TERM-proof silent loop (so nothing dies of SIGPIPE either). */
export function tortureJob(seconds: number): string[] {
  const script = `sleep ${String(seconds)} & setsid sleep ${String(seconds + 1)} & trap "" TERM INT; echo ready; while :; do sleep 1; done`;
  return ['sh', '-c', script];
}

/** The same children, then a normal `exit 3` that leaves them behind for the wrapper to reap. */
export function leavingJob(seconds: number): string[] {
  return ['sh', '-c', `sleep ${String(seconds)} & setsid sleep ${String(seconds + 1)} & echo done; exit 3`];
}

/** Waits until the run's processes include the setsid'd grandchild: only then is a proof a proof. */
export async function expectTortureRunning(
  context: HostTestContext,
  runTag: string,
  seconds: number,
): Promise<void> {
  await waitUntil(
    async () => {
      const cmdlines = (await context.scanProcesses(runTag)).map((p) => p.cmdline);
      return (
        cmdlines.includes(`sleep ${String(seconds)}`) && cmdlines.includes(`sleep ${String(seconds + 1)}`)
      );
    },
    { timeoutMs: 10_000, what: 'the torture job and its children' },
  );
}

const AnnouncementSchema = z.object({ runTag: z.string() });

async function readRunTag(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  for await (const line of createInterface({ input: child.stdout })) {
    return AnnouncementSchema.parse(JSON.parse(line)).runTag;
  }
  throw new Error(`the backend fixture exited without announcing its run; stderr: ${stderr}`);
}

function log(name: string, scenario: string, ms: number): void {
  console.log(`[cleanup ${name}] ${scenario}: nothing left ${String(ms)} ms after the action`);
}

export function describeHostCleanup(name: string, setup: HostCleanupSetup): void {
  describe(`Host cleanup: ${name}`, () => {
    let context: HostCleanupContext;
    const runTags: string[] = [];
    const backends: ChildProcessByStdio<null, Readable, Readable>[] = [];
    // How long a stop may take to leave nothing, past the limit that starts it: the watchdog reads the heartbeat's
    // mtime in whole seconds and polls each second, then TERM, the grace, KILL. A bound to wait within, not a figure:
    // on a machine at load 13 (CI), 4 s past the grace ran out for a frozen backend's lease.
    const budget = CLEANUP_LIMITS.graceMs + 10_000;

    beforeAll(async () => {
      context = await setup();
    });
    const untagged: string[] = [];
    afterEach(async () => {
      for (const backend of backends.splice(0)) if (backend.exitCode === null) backend.kill('SIGKILL');
      await killCommands(untagged);
      await reapRuns(context, runTags);
    });
    afterAll(async () => {
      await context.host.close();
      await context.cleanup();
    });

    async function startTorture(seconds: number, limits: RunLimits = CLEANUP_LIMITS) {
      const handle = await context.host.startRun({
        argv: tortureJob(seconds),
        cwd: context.scratchDir,
        limits,
      });
      runTags.push(handle.runTag);
      const watch = watchRun(handle);
      await watch.waitForStdout('ready');
      await expectTortureRunning(context, handle.runTag, seconds);
      return { handle, watch };
    }

    it('normal exit: the exit code is kept and the left-behind children are reaped', async () => {
      const handle = await context.host.startRun({
        argv: leavingJob(2101),
        cwd: context.scratchDir,
        limits: CLEANUP_LIMITS,
      });
      runTags.push(handle.runTag);
      const result = await watchRun(handle).finish();
      expect(result.outcome).toEqual({ kind: 'exited', code: 3, signal: null });
      expect(result.stdout).toBe('done\n');
      log(name, 'normal exit', await expectNothingLeft(context, handle.runTag, 2000));
    });

    it('cancel(): TERM, grace, KILL; the outcome is cancelled', async () => {
      const { handle, watch } = await startTorture(2111);
      const started = Date.now();
      handle.cancel();
      handle.cancel();
      expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
      await expectNothingLeft(context, handle.runTag, budget);
      log(name, 'cancel', Date.now() - started);
    });

    it('channel closed (abandon): the wrapper sees EOF and stops the run', async () => {
      const { handle, watch } = await startTorture(2121);
      const started = Date.now();
      handle.abandon();
      await expectNothingLeft(context, handle.runTag, budget);
      log(name, 'channel closed', Date.now() - started);
      expect((await watch.finish()).outcome).toMatchObject({ kind: 'connection_lost' });
    });

    it('max runtime: the wrapper stops the run by itself', async () => {
      const { handle, watch } = await startTorture(2131, { ...CLEANUP_LIMITS, maxRuntimeMs: 2000 });
      const started = Date.now();
      expect((await watch.finish()).outcome).toEqual({ kind: 'max_runtime' });
      log(
        name,
        'max runtime 2 s (from ready)',
        (await expectNothingLeft(context, handle.runTag, 1000)) + Date.now() - started,
      );
    });

    it('killRun() from outside the channel', async () => {
      const { handle, watch } = await startTorture(2141);
      const started = Date.now();
      await context.host.killRun(handle.runTag);
      await expectNothingLeft(context, handle.runTag, 1000);
      log(name, 'killRun', Date.now() - started);
      expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
    });

    /**
     * A `sleep` of its own (the suites of several hosts run at once), and the job `script(command)` around it. The
     * command has the sleep's length as `$((n + 0))`, so only the sleep's own command line reads `sleep <n>`.
     */
    async function startUntagged(script: (command: string) => string) {
      const seconds = randomInt(3_000_000, 4_000_000);
      const sleep = `sleep ${String(seconds)}`;
      untagged.push(sleep);
      const handle = await context.host.startRun({
        argv: ['bash', '-c', script(`sleep $((${String(seconds)} + 0))`)],
        cwd: context.scratchDir,
        limits: CLEANUP_LIMITS,
      });
      runTags.push(handle.runTag);
      return { handle, sleep, watch: watchRun(handle) };
    }

    // Issue 39: `env -i` drops CATALYST_RUN_TAG, so the stop by tag no longer sees the process.
    it('killRun() stops a job that replaced itself with `exec env -i`', async () => {
      const { handle, sleep, watch } = await startUntagged((s) => `exec env -i sh -c '${s}; :'`);
      await awaitCommand(sleep);
      const started = Date.now();
      await context.host.killRun(handle.runTag);
      await expectNoCommandLeft(sleep, 1000);
      log(name, 'killRun, job after exec env -i', Date.now() - started);
      expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
    });

    it('killRun() stops an `env -i` child that job control put in a group of its own', async () => {
      const { handle, sleep, watch } = await startUntagged(
        (s) => `set -m; env -i sh -c '${s}; :' & trap "" TERM INT; while :; do sleep 1; done`,
      );
      await awaitCommand(sleep);
      const started = Date.now();
      await context.host.killRun(handle.runTag);
      await expectNoCommandLeft(sleep, 1000);
      log(name, 'killRun, env -i child in its own group', Date.now() - started);
      expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
    });

    it('normal exit: an `env -i` child left behind is reaped', async () => {
      // The child says it runs through a FIFO, so the job ends only once the child has dropped its tag.
      const { sleep, watch } = await startUntagged(
        (s) =>
          `f=started-$$; mkfifo $f; env -i sh -c "echo >$f; exec ${s}" >/dev/null 2>&1 & read -r _ <$f; rm $f; exit 3`,
      );
      expect((await watch.finish()).outcome).toEqual({ kind: 'exited', code: 3, signal: null });
      log(name, 'normal exit, env -i child', await expectNoCommandLeft(sleep, 2000));
    });

    async function startBackend(seconds: number) {
      // Every host under test must prove these two cases: a setup without a backend process fails, never skips.
      if (context.spawnBackend === undefined) throw new Error(`${name}: the setup gives no spawnBackend`);
      const backend = context.spawnBackend({
        readyText: 'ready',
        spec: { argv: tortureJob(seconds), cwd: context.scratchDir, limits: CLEANUP_LIMITS },
      });
      backends.push(backend);
      const runTag = await readRunTag(backend);
      runTags.push(runTag);
      await expectTortureRunning(context, runTag, seconds);
      return { backend, runTag };
    }

    it('backend killed with SIGKILL: its pipes close, the wrapper sees EOF', async () => {
      const started = await startBackend(2151);
      const killedAt = Date.now();
      started.backend.kill('SIGKILL');
      await expectNothingLeft(context, started.runTag, budget);
      log(name, 'backend SIGKILL', Date.now() - killedAt);
    });

    it('backend frozen with SIGSTOP: heartbeats stop, the lease lapses', async () => {
      const started = await startBackend(2161);
      const frozenAt = Date.now();
      started.backend.kill('SIGSTOP');
      try {
        await expectNothingLeft(context, started.runTag, CLEANUP_LIMITS.leaseMs + budget);
        log(name, 'backend SIGSTOP (lease 3 s)', Date.now() - frozenAt);
        expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(CLEANUP_LIMITS.leaseMs - 1000);
      } finally {
        started.backend.kill('SIGKILL');
      }
    });
  });
}
