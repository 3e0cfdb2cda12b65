import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '@catalyst/testkit';
import { renderKillScript, renderRunWrapper, renderSweepScript } from '../src/core/run-wrapper.ts';
import { renderShellCallArgv } from '../src/core/shell-quote.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { tortureJob, expectTortureRunning } from './host-cleanup.ts';
import {
  expectNothingLeft,
  hasLocalRunDir,
  reapRuns,
  scanLocalProcesses,
  watchRun,
  type HostTestContext,
} from './host-test-kit.ts';

// The rendered scripts themselves, under dash and bash: syntax, a fault injected into the start-up race, and the
// sweep that backs up a dead watchdog.

const SHELLS = ['/bin/dash', '/bin/bash'] as const;
// Unique per test process: two test runs at once must not share a run directory or a process scan.
const TAG = `script-test-${randomBytes(6).toString('hex')}`;
const wrapperOptions = { cwd: '/tmp', leaseSeconds: 30, graceSeconds: 1, maxRuntimeSeconds: 60 };

const host = createLocalHost({ killGraceMs: 1000 });
const context: HostTestContext = {
  host,
  scratchDir: tmpdir(),
  scanProcesses: scanLocalProcesses,
  hasRunDir: hasLocalRunDir,
  cleanup: () => Promise.resolve(),
};
const runTags: string[] = [];

afterEach(async () => {
  await reapRuns(context, runTags);
});

describe.each(SHELLS)('the wrapper scripts under %s', (shell) => {
  it.each([
    ['wrapper', renderRunWrapper({ ...wrapperOptions, argv: ['claude', '-p'], env: { A: "it's" } })],
    ['watchdog', renderRunWrapper({ ...wrapperOptions, argv: ['claude'] }).args[5] ?? ''],
    ['kill script', renderKillScript({ graceSeconds: 5 })],
    ['sweep script', renderSweepScript({ staleSeconds: 90, graceSeconds: 5 })],
  ])('the %s parses', (_what, call) => {
    const script = typeof call === 'string' ? call : call.script;
    const result = spawnSync(shell, ['-n', '-c', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('a job that opens its stdin late still gets input ended at once (the FIFO opens rendezvous)', async () => {
    // Fault injection: the job opens its FIFO a second late, long after the watchdog has read `e`.
    const call = renderRunWrapper({
      ...wrapperOptions,
      argv: ['sh', '-c', 'cat; echo done'],
      testDelayFifoOpenSeconds: 1,
    });
    const startedAt = Date.now();
    const child = spawn(shell, renderShellCallArgv(call), {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    runTags.push(TAG);
    child.stdin.write(`${TAG}\ne\n`);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    child.stdin.destroy();
    // The delay took effect: the job could not have read its EOF before it.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(stdout).toContain('done\n');
    expect(stderr).toContain('@@catalyst-run ended reason=exit code=0');
    expect(code).toBe(0);
  });
});

describe('the sweep script', () => {
  it('stops a run whose watchdog died, reports it, and removes its run dir', async () => {
    const handle = await host.startRun({
      argv: tortureJob(2201),
      cwd: tmpdir(),
      limits: { leaseMs: 60_000, graceMs: 1000 },
    });
    runTags.push(handle.runTag);
    const watch = watchRun(handle);
    await watch.waitForStdout('ready');
    await expectTortureRunning(context, handle.runTag, 2201);
    const runDir = `${process.env['TMPDIR'] ?? '/tmp'}/catalyst-runs-${String(process.getuid?.() ?? 0)}/${handle.runTag}`;
    const watchdog = Number((await readFile(`${runDir}/watchdog`, 'utf8')).trim());
    process.kill(-watchdog, 'SIGKILL');
    const sweep = renderSweepScript({ staleSeconds: 1, graceSeconds: 1 });
    let output = '';
    await waitUntil(
      () => {
        output = spawnSync('/bin/sh', renderShellCallArgv(sweep), { encoding: 'utf8' }).stdout;
        return output.includes(handle.runTag);
      },
      { timeoutMs: 5000, intervalMs: 250, what: 'the sweep to stop the run' },
    );
    expect(output).toContain(`@@catalyst-sweep stopped tag=${handle.runTag}\n`);
    await expectNothingLeft(context, handle.runTag, 3000);
    expect((await watch.finish()).outcome).toEqual({ kind: 'lease_lost' });
    await expect(readFile(`${runDir}/watchdog`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
