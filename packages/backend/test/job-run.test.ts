import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempDir, startTcpProxy, stopAllSshd, waitUntil } from '@catalyst/testkit';
import type { Host, RunLimits } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { runHostCommand } from '../src/host/host-command.ts';
import { startJobRun, type ConnectionEvent } from '../src/host/job-run.ts';
import { describeHostContract } from './host-contract.ts';
import {
  expectNothingLeft,
  scanLocalProcesses,
  scanProcessesIn,
  watchRun,
  type HostTestSetup,
} from './host-test-kit.ts';
import { createSharedSshd, findSessionProcesses, sshHostConfig, sshHostSetup } from './ssh-test-kit.ts';

// A run whose process lives in a session on the host (host/job-run.ts, issue 11): the same run contract as the
// wrapper's, and a lost connection that only detaches it.

const getSshd = createSharedSshd();
/** The folders the runs below work in, in a test user's home: removed at the end. */
const scratchDirs: string[] = [];

afterAll(async () => {
  await stopAllSshd();
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function scratchIn(home: string): string {
  const dir = `${home}/session-run-${randomBytes(4).toString('hex')}`;
  scratchDirs.push(dir);
  return dir;
}

/** The host, with runs in sessions; killRun stops the session (it claims `cancel` first). */
function inSessions(host: Host): Host {
  return {
    ...host,
    startRun: (spec) => startJobRun(spec, { jobs: host.jobs }),
    killRun: (runTag) => host.jobs.stop(runTag),
    close: () => host.close(),
  };
}

function withJobRuns(setup: HostTestSetup): HostTestSetup {
  return async () => {
    const context = await setup();
    return { ...context, host: inSessions(context.host) };
  };
}

describeHostContract(
  'runs in sessions, local /bin/sh',
  withJobRuns(async () => {
    const scratch = await createTempDir('session-run');
    return {
      host: createLocalHost({ killGraceMs: 1000 }),
      scratchDir: scratch.path,
      scanProcesses: scanLocalProcesses,
      cleanup: () => scratch.remove(),
      permissionDeniedPath: process.getuid?.() === 0 ? '/sys/catalyst-denied' : '/root/catalyst-denied',
    };
  }),
);
describeHostContract('runs in sessions, ssh as the dash user', withJobRuns(sshHostSetup(getSshd, 'dash')));

/**
 * A 40-line job in a session on `host` that then waits for its input to end; `cut` breaks the connection once line 5 is out. The run must detach,
 * re-attach and read on: every line once, in order, the job never stopped, nothing left afterwards (no process of
 * the session, none of an attach script either).
 */
async function expectReadOnAfter(
  host: Host,
  home: string,
  cut: () => Promise<void> | void,
  limits?: RunLimits,
): Promise<void> {
  const events: ConnectionEvent[] = [];
  const scratch = scratchIn(home);
  await host.mkdirp(scratch);
  // Then it waits for its input to end: a re-attach is the only way the run can end.
  const script = 'i=0; while [ $i -lt 40 ]; do i=$((i + 1)); echo "line $i"; sleep 0.1; done; cat >/dev/null';
  const handle = await startJobRun(
    { argv: ['sh', '-c', script], cwd: scratch, ...(limits === undefined ? {} : { limits }) },
    {
      jobs: host.jobs,
      onConnection: (event) => events.push(event),
      reconnect: { firstDelayMs: 200, maxDelayMs: 1000 },
    },
  );
  const watch = watchRun(handle);
  await watch.waitForStdout('line 5\n');
  await cut();
  await waitUntil(() => events.some((event) => event.state === 'attached'), {
    timeoutMs: 20_000,
    what: 'the run to re-attach',
  });
  await handle.endInput();
  const result = await watch.finish();
  const expected = Array.from({ length: 40 }, (_, i) => `line ${String(i + 1)}\n`).join('');
  expect(result.stdout).toBe(expected);
  expect(result.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
  expect(events.map((event) => event.state)).toEqual(['detached', 'attached']);
  await expectNothingLeft({ scanProcesses: scanLocalProcesses }, handle.runTag, 10_000);
  await waitUntil(async () => !(await host.jobs.list()).some((s) => s.sessionId === handle.runTag), {
    timeoutMs: 10_000,
    what: 'the session files to be removed',
  });
  const sessionDir = `${home}/.catalyst-sessions/${handle.runTag}`;
  await waitUntil(async () => (await scanProcessesIn(sessionDir)).length === 0, {
    timeoutMs: 10_000,
    what: 'the attach scripts to be gone',
  });
}

describe('a run in a session when the connection drops', () => {
  it('re-attaches and reads on from where it was: every line once, in order; the run never stopped', async () => {
    const sshd = await getSshd();
    const host = createSshHost(sshHostConfig(sshd, 'bash'), { killGraceMs: 1000 });
    // The VM's sshd session processes die, as when the network drops: the connection is gone at once.
    await expectReadOnAfter(host, sshd.users.bash.home, async () => {
      for (const pid of await findSessionProcesses(sshd)) process.kill(pid, 'SIGKILL');
    });
    await host.close();
  });
});

describe('a run in a session when the connection freezes', () => {
  it('notices by keepalive, re-attaches over a new connection, and reads on: every line once', async () => {
    const sshd = await getSshd();
    // The VM behind a proxy that can stop answering on the connections it carries (a frozen network path).
    const proxy = await startTcpProxy({ host: sshd.host, port: sshd.port });
    const port = Number(new URL(proxy.url).port);
    const timing = { keepaliveIntervalMs: 300, keepaliveCountMax: 2 };
    const host = createSshHost(sshHostConfig(sshd, 'bash', { port, timing }), { killGraceMs: 1000 });
    await expectReadOnAfter(host, sshd.users.bash.home, () => {
      expect(proxy.loseAnswers(), 'the host had a connection through the proxy').toBeGreaterThan(0);
    });
    await host.close();
    await proxy.close();
  });

  it('when the VM hears nothing of it either, the re-attach displaces the attach script the VM still holds', async () => {
    const sshd = await getSshd();
    const proxy = await startTcpProxy({ host: sshd.host, port: sshd.port });
    const port = Number(new URL(proxy.url).port);
    const timing = { keepaliveIntervalMs: 300, keepaliveCountMax: 2 };
    const host = createSshHost(sshHostConfig(sshd, 'bash', { port, timing }), { killGraceMs: 1000 });
    // The old attach script lives on, holding the session's lock, until its heartbeat (every 0.5 s) is stale.
    const limits = { leaseMs: 1_500, detachedMs: 60_000 };
    await expectReadOnAfter(
      host,
      sshd.users.bash.home,
      () => {
        expect(proxy.freeze(), 'the host had a connection through the proxy').toBeGreaterThan(0);
      },
      limits,
    );
    await host.close();
    await proxy.close();
  });
});

// Issue 25, item 4: on a busy host a run waited for one of the pool's run channels after its session had started,
// idle and unfollowed, and the session's lease took that for a Catalyst gone: 6 of 50 chats of the relay bench
// ended `connection_lost`. The same starvation, small: one run channel, a lease of 2 s.
describe('a run that waits for a channel on a busy host', () => {
  it('starts its session only once it can follow it: it waits, then completes, however long the wait', async () => {
    const sshd = await getSshd();
    const pool = { maxConnections: 1, maxRunsPerConnection: 1 };
    const host = createSshHost(sshHostConfig(sshd, 'bash', { pool }), { killGraceMs: 1000 });
    const scratch = scratchIn(sshd.users.bash.home);
    await host.mkdirp(scratch);
    const limits = { leaseMs: 2_000, detachedMs: 2_000 };
    // The first holds the only run channel for 5 s, past the lease (its heartbeat keeps it alive).
    const busy = await startJobRun(
      { argv: ['sh', '-c', 'sleep 5; echo busy done'], cwd: scratch, limits },
      { jobs: host.jobs },
    );
    const busyWatch = watchRun(busy);
    // The second waits for its input, which it gets only through its attachment.
    const waiting = startJobRun(
      { argv: ['sh', '-c', 'IFS= read -r line; echo "got $line"'], cwd: scratch, limits },
      { jobs: host.jobs },
    );
    expect(await busyWatch.finish()).toMatchObject({
      stdout: 'busy done\n',
      outcome: { kind: 'exited', code: 0 },
    });
    const second = await waiting;
    const secondWatch = watchRun(second);
    await second.writeLine('{"n":1}');
    expect(await secondWatch.finish()).toMatchObject({
      stdout: 'got {"n":1}\n',
      outcome: { kind: 'exited', code: 0 },
    });
    await host.close();
  });
});

// Issue 39, carried item 3: Catalyst's own short commands (a checkpoint's git, the ports look-up) waited for a run
// channel; on a host whose run channels are all held (runs, terminals, warm sessions) a checkpoint or a preview
// waited with them. They take a control channel now.
describe('a command of Catalyst`s own on a host whose run channels are all held', () => {
  it('runs at once on a control channel, while a run waits for the held one', async () => {
    const sshd = await getSshd();
    const pool = { maxConnections: 1, maxRunsPerConnection: 1 };
    const host = createSshHost(sshHostConfig(sshd, 'bash', { pool }), { killGraceMs: 1000 });
    const scratch = scratchIn(sshd.users.bash.home);
    await host.mkdirp(scratch);
    const holder = await host.startRun({ argv: ['sh', '-c', 'IFS= read -r line; echo done'], cwd: scratch });
    const holderWatch = watchRun(holder);
    const waiting = host.startRun({ argv: ['echo', 'second run'], cwd: scratch });
    let hasStarted = false;
    void waiting.then(() => (hasStarted = true));

    const result = await runHostCommand(host, {
      argv: ['echo', 'ok'],
      cwd: scratch,
      timeoutMs: 20_000,
      maxStdoutBytes: 1000,
    });
    expect({ stdout: result.stdout.toString(), outcome: result.outcome }).toMatchObject({
      stdout: 'ok\n',
      outcome: { kind: 'exited', code: 0 },
    });
    expect(hasStarted, 'the second run waits for the one run channel').toBe(false);

    await holder.writeLine('{}');
    expect(await holderWatch.finish()).toMatchObject({
      stdout: 'done\n',
      outcome: { kind: 'exited', code: 0 },
    });
    expect(await watchRun(await waiting).finish()).toMatchObject({ stdout: 'second run\n' });
    await host.close();
  });
});
