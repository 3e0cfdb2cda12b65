import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startTcpProxy, stopAllSshd, waitUntil } from '@catalyst/testkit';
import { startJobRun, type ConnectionEvent } from '../src/host/job-run.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { staleAfterMs } from '../src/host/vm-jobs.ts';
import { expectNothingLeft, scanLocalProcesses, watchRun } from './host-test-kit.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// Issue 39: a connection that died without the VM hearing of it (a frozen network path) left the old attach script
// holding the session, and the re-attach was refused (SESSION_BUSY) until its heartbeat was 16 s stale, with a backoff
// doubling meanwhile: half a minute before the run's output came again. The run that held the attachment knows its
// channel is gone, and takes its own place at once.

const getSshd = createSharedSshd();
const scratchDirs: string[] = [];

afterAll(async () => {
  await stopAllSshd();
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a run whose connection froze without the VM noticing', () => {
  it('re-attaches before the old attachment could go stale: it takes over its own dead attachment', async () => {
    const sshd = await getSshd();
    const proxy = await startTcpProxy({ host: sshd.host, port: sshd.port });
    const port = Number(new URL(proxy.url).port);
    // The backend notices the frozen connection in well under a second; the VM never does (no keepalive there).
    const timing = { keepaliveIntervalMs: 300, keepaliveCountMax: 2 };
    const host = createSshHost(sshHostConfig(sshd, 'bash', { port, timing }), { killGraceMs: 1000 });
    const scratch = `${sshd.users.bash.home}/reattach-${randomBytes(4).toString('hex')}`;
    scratchDirs.push(scratch);
    await host.mkdirp(scratch);
    const events: ConnectionEvent[] = [];
    const script =
      'i=0; while [ $i -lt 400 ]; do i=$((i + 1)); echo "line $i"; sleep 0.1; done; cat >/dev/null';
    // The default limits and reconnect, as a build has them: the old attachment goes stale after 16 s.
    const handle = await startJobRun(
      { argv: ['sh', '-c', script], cwd: scratch },
      { jobs: host.jobs, onConnection: (event) => events.push(event) },
    );
    expect(staleAfterMs()).toBe(16_000);
    const watch = watchRun(handle);
    await watch.waitForStdout('line 5\n');
    expect(proxy.freeze(), 'the host had a connection through the proxy').toBeGreaterThan(0);
    const frozenAt = Date.now();
    await waitUntil(() => events.some((event) => event.state === 'detached'), {
      timeoutMs: 10_000,
      what: 'the backend to notice the frozen connection',
    });
    const seen = watch.stdout().length;
    await waitUntil(() => watch.stdout().length > seen, { timeoutMs: 40_000, what: 'the output to resume' });
    // A bound of correctness, not of speed: well before the old attachment's 16 s staleness could have run out, so
    // the re-attach was not a wait for it (measured here: about 2 s with the take-over, 15.5 to 16 s without; up to 17 s by the heartbeat’s phase).
    const resumedAfterMs = Date.now() - frozenAt;
    expect(resumedAfterMs).toBeLessThan(10_000);
    expect(events.map((event) => event.state)).toEqual(['detached', 'attached']);
    handle.cancel();
    expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
    const lines = watch.stdout().trimEnd().split('\n');
    expect(lines).toEqual(lines.map((_line, index) => `line ${String(index + 1)}`));
    await expectNothingLeft({ scanProcesses: scanLocalProcesses }, handle.runTag, 10_000);
    await host.close();
    await proxy.close();
  }, 60_000);
});
