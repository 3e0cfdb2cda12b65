import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  caught,
  createTempDir,
  opensshFingerprint,
  type TempDir,
  startSshd,
  stopAllSshd,
} from '@catalyst/testkit';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import { CLEANUP_LIMITS, expectTortureRunning, tortureJob } from './host-cleanup.ts';
import {
  expectNothingLeft,
  reapRuns,
  scanLocalProcesses,
  watchRun,
  type HostTestContext,
} from './host-test-kit.ts';
import { createSharedSshd, findSessionProcesses, sshHostConfig } from './ssh-test-kit.ts';

// What is SSH's alone: the host key pin, typed connection failures, a connection that ends or dies mid-run.

const run = promisify(execFile);
const getSshd = createSharedSshd();
let keys: TempDir;
const hosts: SshHost[] = [];
const runTags: string[] = [];

beforeAll(async () => {
  keys = await createTempDir('ssh-keys');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  // Root's kill script can stop any user's leftovers.
  const reaper = createSshHost(sshHostConfig(await getSshd(), 'root'));
  await reapRuns(localContext(reaper), runTags).finally(() => reaper.close());
});
afterAll(async () => {
  await stopAllSshd();
  await keys.remove();
});

function localContext(host: SshHost): HostTestContext {
  return { host, scratchDir: '', scanProcesses: scanLocalProcesses, cleanup: () => Promise.resolve() };
}

function track(host: SshHost): SshHost {
  hosts.push(host);
  return host;
}

const OTHER_KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIAN+IbcPjC0IRHSFa50LhwyIEyZf9T7MT6o40J8hJ4YQ';

describe('host key pinning', () => {
  it('refuses a server whose key differs from the pin, naming both fingerprints', async () => {
    const sshd = await getSshd();
    const wrongPin = `[127.0.0.1]:${String(sshd.port)} ssh-ed25519 ${OTHER_KEY}`;
    const host = track(createSshHost(sshHostConfig(sshd, 'dash', { hostKey: wrongPin })));
    const error = await caught(host.homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_HOST_KEY_MISMATCH');
    const message = error instanceof Error ? error.message : '';
    expect(message).toContain(await opensshFingerprint(wrongPin));
    expect(message).toContain(await opensshFingerprint(sshd.hostKeyLine));
    const handle = await host.startRun({ argv: ['true'], cwd: '/' });
    const outcome = await handle.outcome;
    expect(outcome.kind).toBe('start_failed');
    expect(outcome.kind === 'start_failed' && outcome.message).toContain(
      await opensshFingerprint(sshd.hostKeyLine),
    );
    expect(host.stats()).toMatchObject({ connectionsOpened: 0, handshakeAttempts: 2 });
  });

  it('refuses to create a host without a pin and says how to get one', async () => {
    const sshd = await getSshd();
    const { hostKey: _ignored, ...config } = sshHostConfig(sshd, 'dash');
    const error = await caught(Promise.resolve().then(() => createSshHost(config)));
    expect(isCatalystError(error) && error.code).toBe('SSH_HOST_KEY_MISSING');
    expect(error instanceof Error && error.message).toContain(
      `ssh-keyscan -p ${String(sshd.port)} -t ed25519 127.0.0.1`,
    );
  });

  it('connects when the pin matches, as ssh-keyscan prints it', async () => {
    const sshd = await getSshd();
    const { stdout } = await run('/usr/bin/ssh-keyscan', [
      '-p',
      String(sshd.port),
      '-t',
      'ed25519',
      '127.0.0.1',
    ]);
    const host = track(createSshHost(sshHostConfig(sshd, 'dash', { hostKey: stdout.trim() })));
    expect(await host.homeDir()).toBe(sshd.users.dash.home);
  });
});

describe('typed connection failures', () => {
  it('a key the server does not know is SSH_AUTH_FAILED, not retried', async () => {
    const sshd = await getSshd();
    const keyPath = `${keys.path}/stranger`;
    await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyPath]);
    const host = track(createSshHost(sshHostConfig(sshd, 'dash', { privateKeyPath: keyPath })));
    const error = await caught(host.homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_AUTH_FAILED');
    expect(host.stats().handshakeAttempts).toBe(1);
  });

  it('a server that never speaks: the handshake timeout is retried, then SSH_CONNECT_FAILED; no stray error', async () => {
    // ssh2 emits a second 'error' (`Connection lost before handshake`) after a ready timeout (§5): the process
    // would die of an unhandled 'error' here without a permanent listener.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const config = sshHostConfig(await getSshd(), 'dash', {
        port: address.port,
        timing: { readyTimeoutMs: 200 },
        pool: { connectBackoffMs: 10 },
      });
      const host = track(createSshHost(config));
      const error = await caught(host.homeDir());
      expect(isCatalystError(error) && error.code).toBe('SSH_CONNECT_FAILED');
      expect(error instanceof Error && error.message).toContain('Timed out while waiting for handshake');
      expect(host.stats()).toMatchObject({ handshakeAttempts: 3, handshakeFailures: 1 });
      expect(sockets.size).toBe(3);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('a closed port is SSH_CONNECT_FAILED (ECONNREFUSED), not retried', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const address = probe.address();
    probe.close();
    await once(probe, 'close');
    if (address === null || typeof address === 'string') throw new Error('no port');
    const host = track(createSshHost(sshHostConfig(await getSshd(), 'dash', { port: address.port })));
    const error = await caught(host.readFile('/etc/hostname'));
    expect(isCatalystError(error) && error.code).toBe('SSH_CONNECT_FAILED');
    expect(isCatalystError(error) && error.details['code']).toBe('ECONNREFUSED');
    expect(host.stats().handshakeAttempts).toBe(1);
  });
});

describe('a connection that goes away mid-run', () => {
  it('the ssh2 connection ends (host.close()): nothing carrying the tag remains after grace + lease', async () => {
    const sshd = await getSshd();
    const host = createSshHost(sshHostConfig(sshd, 'bash'));
    const handle = await host.startRun({ argv: tortureJob(2201), cwd: '/tmp', limits: CLEANUP_LIMITS });
    runTags.push(handle.runTag);
    const watch = watchRun(handle);
    await watch.waitForStdout('ready');
    await expectTortureRunning(localContext(host), handle.runTag, 2201);
    const endedAt = Date.now();
    await host.close();
    expect((await watch.finish()).outcome).toMatchObject({ kind: 'connection_lost' });
    await expectNothingLeft(
      { scanProcesses: scanLocalProcesses },
      handle.runTag,
      CLEANUP_LIMITS.graceMs + CLEANUP_LIMITS.leaseMs + 2000,
    );
    console.log(`[ssh] connection end: nothing left ${String(Date.now() - endedAt)} ms after conn.end()`);
  });

  it('a frozen server: keepalive fails the run as connection_lost, the lease stops it, the next run reconnects', async () => {
    // A server of its own: every sshd session process below it is frozen.
    const sshd = await startSshd();
    const host = track(
      createSshHost(
        sshHostConfig(sshd, 'dash', { timing: { keepaliveIntervalMs: 300, keepaliveCountMax: 2 } }),
      ),
    );
    const handle = await host.startRun({ argv: tortureJob(2211), cwd: '/tmp', limits: CLEANUP_LIMITS });
    runTags.push(handle.runTag);
    const watch = watchRun(handle);
    await watch.waitForStdout('ready');
    const sessions = await findSessionProcesses(sshd);
    expect(sessions.length).toBeGreaterThan(0);
    for (const pid of sessions) process.kill(pid, 'SIGSTOP');
    try {
      const frozenAt = Date.now();
      const { outcome } = await watch.finish();
      expect(outcome.kind).toBe('connection_lost');
      expect(outcome.kind === 'connection_lost' && outcome.message).toContain('Keepalive timeout');
      expect(Date.now() - frozenAt).toBeLessThan(2000);
      await expectNothingLeft(
        { scanProcesses: scanLocalProcesses },
        handle.runTag,
        CLEANUP_LIMITS.leaseMs + CLEANUP_LIMITS.graceMs + 2000,
      );
    } finally {
      for (const pid of sessions) process.kill(pid, 'SIGCONT');
    }
    const next = await host.startRun({ argv: ['sh', '-c', 'echo again'], cwd: '/tmp' });
    runTags.push(next.runTag);
    expect(await watchRun(next).finish()).toMatchObject({
      stdout: 'again\n',
      outcome: { kind: 'exited', code: 0 },
    });
    expect(host.stats()).toMatchObject({ connectionsOpened: 2, openConnections: 1 });
    await sshd.stop();
  });
});
