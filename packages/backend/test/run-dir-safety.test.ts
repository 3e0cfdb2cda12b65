import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signalIfAlive, startSshd, stopAllSshd, waitUntil, type SshdHandle } from '@catalyst/testkit';
import { startCatalyst } from '../src/app.ts';
import type { Host, RunHandle } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { expectNothingLeft, scanLocalProcesses, watchRun, type HostTestContext } from './host-test-kit.ts';
import { loadConfig } from '../src/server/config.ts';
import { sshHostConfig } from './ssh-test-kit.ts';

/**
 * Issue 16, item 2, on a shared VM: the test sshd's two login users, the bash user running Catalyst's runs (the
 * victim) and the dash user (another user of the VM). Every session gets `TMPDIR` pointing at one sticky,
 * world-writable directory, as /tmp is, so the other user can create the victim's run root before the victim does
 * and plant run dirs in it. Whatever the other user plants, a cancel and a sweep must not touch it.
 */

const LIMITS = { leaseMs: 30_000, graceMs: 1000, maxRuntimeMs: 120_000 };

let sshd: SshdHandle;
let sharedTmp: string;
let victim: Host;
let other: Host;
let victimUid: number;
let victimGid: number;
const handles: RunHandle[] = [];
const paths: string[] = [];

beforeAll(async () => {
  sharedTmp = await mkdtemp(join(tmpdir(), 'catalyst-shared-tmp-'));
  await chmod(sharedTmp, 0o1777);
  sshd = await startSshd({ settings: { SetEnv: `TMPDIR=${sharedTmp}` } });
  ({ uid: victimUid, gid: victimGid } = await stat(sshd.users.bash.home));
  victim = createSshHost(sshHostConfig(sshd, 'bash'), { killGraceMs: 1000 });
  other = createSshHost(sshHostConfig(sshd, 'dash'));
}, 60_000);

afterEach(async () => {
  for (const handle of handles.splice(0)) {
    handle.cancel();
    await handle.outcome;
  }
  await Promise.all(paths.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

afterAll(async () => {
  await Promise.all([victim.close(), other.close()]);
  await stopAllSshd();
  await rm(sharedTmp, { recursive: true, force: true });
});

const context = (): HostTestContext => ({
  host: victim,
  scratchDir: sshd.users.bash.home,
  scanProcesses: scanLocalProcesses,
  cleanup: () => Promise.resolve(),
});

/** Runs `script` as the other user, over its own SSH session; it must succeed. */
async function asOtherUser(script: string): Promise<void> {
  const handle = await other.startRun({ argv: ['sh', '-c', script], cwd: '/tmp', limits: LIMITS });
  const result = await watchRun(handle).finish();
  expect(result.outcome, result.stderr).toEqual({ kind: 'exited', code: 0, signal: null });
}

/** A run of the victim's that prints its job's pid, then sleeps. */
async function startVictimRun(seconds: number): Promise<{ handle: RunHandle; jobPid: number }> {
  const handle = await victim.startRun({
    argv: ['sh', '-c', `echo "pid=$$"; exec sleep ${String(seconds)}`],
    cwd: sshd.users.bash.home,
    limits: LIMITS,
  });
  handles.push(handle);
  const watch = watchRun(handle);
  await watch.waitForStdout('\n');
  const jobPid = Number(/pid=(\d+)/.exec(watch.stdout())?.[1]);
  expect(Number.isInteger(jobPid)).toBe(true);
  return { handle, jobPid };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A file of the victim's that a write through a planted symlink would overwrite (think authorized_keys). */
async function victimFile(): Promise<string> {
  const path = `${sshd.users.bash.home}/precious-${randomBytes(4).toString('hex')}`;
  await writeFile(path, 'precious\n', { mode: 0o600 });
  await chown(path, victimUid, victimGid);
  paths.push(path);
  return path;
}

/**
 * The other user makes the victim's run root in the shared TMPDIR (it did not exist yet, as on a fresh VM) and
 * plants `<root>/<tag>/` in it: the job pid of its choice, a stale heartbeat, and claim files that are symlinks to
 * a file of the victim's.
 */
async function plantRunDir(tag: string, jobPid: number, target: string): Promise<string> {
  const root = `${sharedTmp}/catalyst-runs-${String(victimUid)}`;
  const dir = `${root}/${tag}`;
  await asOtherUser(
    [
      `mkdir -p -m 755 '${dir}'`,
      `chmod 755 '${root}' '${dir}'`,
      `echo ${String(jobPid)} >'${dir}/job'`,
      `echo ${String(jobPid)} >'${dir}/watchdog'`,
      `touch -d '2 hours ago' '${dir}/heartbeat'`,
      `ln -s '${target}' '${dir}/claim-cancel'`,
      `ln -s '${target}' '${dir}/claim-lease'`,
    ].join(' && '),
  );
  return dir;
}

describe('run dirs on a VM shared with another user', () => {
  it('a run never uses a run root another user made, and its tag is on no command line', async () => {
    const root = `${sharedTmp}/catalyst-runs-${String(victimUid)}`;
    await asOtherUser(`mkdir -p -m 777 '${root}'`);
    const { handle } = await startVictimRun(2401);
    expect(await readdir(root)).toEqual([]);
    const runDirs = await readdir(`${sshd.users.bash.home}/.catalyst-runs`);
    expect(runDirs).toContain(handle.runTag);
    const cmdlines = await Promise.all(
      (await readdir('/proc'))
        .filter((entry) => /^\d+$/.test(entry))
        .map((entry) => readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')),
    );
    expect(cmdlines.filter((cmdline) => cmdline.includes(handle.runTag))).toEqual([]);
  });

  it("a cancel stops its own run and touches nothing another user planted under the run's tag", async () => {
    const bystander = await startVictimRun(2402);
    const target = await startVictimRun(2403);
    const precious = await victimFile();
    const planted = await plantRunDir(target.handle.runTag, bystander.jobPid, precious);

    await victim.killRun(target.handle.runTag);

    expect((await target.handle.outcome).kind).toBe('cancelled');
    await expectNothingLeft(context(), target.handle.runTag, 3000);
    expect(isAlive(bystander.jobPid)).toBe(true);
    expect(await readFile(precious, 'utf8')).toBe('precious\n');
    expect((await readdir(planted)).sort()).toEqual([
      'claim-cancel',
      'claim-lease',
      'heartbeat',
      'job',
      'watchdog',
    ]);
  });

  it('a sweep skips a stale run dir another user planted, and stops nothing', async () => {
    const bystander = await startVictimRun(2404);
    const precious = await victimFile();
    const tag = `planted-${randomBytes(8).toString('hex')}`;
    const planted = await plantRunDir(tag, bystander.jobPid, precious);

    expect(await victim.sweepRuns()).toEqual([]);

    expect(isAlive(bystander.jobPid)).toBe(true);
    expect(await readFile(precious, 'utf8')).toBe('precious\n');
    expect((await readdir(planted)).sort()).toEqual([
      'claim-cancel',
      'claim-lease',
      'heartbeat',
      'job',
      'watchdog',
    ]);
  });
});

describe('the start-up sweep', () => {
  it('removes the run dir of a wrapper SIGKILLed with its whole run, when Catalyst starts', async () => {
    const host = createLocalHost({ killGraceMs: 1000 });
    const handle = await host.startRun({ argv: ['sleep', '2405'], cwd: '/tmp', limits: LIMITS });
    const root = `${process.env['TMPDIR'] ?? '/tmp'}/catalyst-runs-${String(process.getuid?.() ?? 0)}`;
    const runDir = `${root}/${handle.runTag}`;
    await waitUntil(
      // The wrapper writes the watchdog's pid as it starts it; the watchdog makes `heartbeat` a moment later.
      async () =>
        (await readFile(`${runDir}/watchdog`, 'utf8').catch(() => '')).endsWith('\n') &&
        (await stat(`${runDir}/heartbeat`).then(
          () => true,
          () => false,
        )),
      {
        timeoutMs: 10_000,
        what: 'the watchdog to start and make its heartbeat',
      },
    );
    // Wrapper, job and watchdog each lead a group of their own: kill all three, as an OOM kill or `kill -9 -1` would.
    // Stopped first, all at once: one that saw another die would clean up (remove the run dir) before its own kill.
    const groups = await Promise.all(
      ['wrapper', 'job', 'watchdog'].map(
        async (name) => -Number((await readFile(`${runDir}/${name}`, 'utf8')).trim()),
      ),
    );
    for (const signal of ['SIGSTOP', 'SIGKILL'] as const) {
      // A group may have gone with an earlier one already (the wrapper's end takes its job down).
      for (const group of groups) signalIfAlive(group, signal);
    }
    await handle.outcome;
    await expectNothingLeft(context(), handle.runTag, 3000);
    // Nobody is left to remove the run dir. Its heartbeat ages past the sweep's threshold while Catalyst is down.
    const longAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(`${runDir}/heartbeat`, longAgo, longAgo);
    expect((await stat(runDir)).isDirectory()).toBe(true);

    const configDir = await mkdtemp(join(tmpdir(), 'catalyst-sweep-config-'));
    paths.push(configDir);
    const logs: string[] = [];
    const catalyst = await startCatalyst({
      config: loadConfig(
        { CATALYST_PORT: '0', CATALYST_CONFIG_DIR: configDir, CATALYST_LOG_LEVEL: 'info' },
        { homeDir: configDir },
      ),
      logger: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
    });
    try {
      await catalyst.swept;
      await expect(stat(runDir)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(logs.join('')).toContain(handle.runTag);
    } finally {
      await catalyst.close();
    }
  });
});
