import { afterAll, describe, expect, it } from 'vitest';
import { startSshd, stopAllSshd, type SshdHandle } from '@catalyst/testkit';
import type { RunHandle } from '../src/host/host.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import { watchRun } from './host-test-kit.ts';
import { sshHostConfig } from './ssh-test-kit.ts';

// The connection pool against a real sshd: MaxSessions (10 by default) and MaxStartups (10:30:100) are what it
// has to live with (ssh-field-notes.md §4).

afterAll(async () => {
  await stopAllSshd();
});

async function startRuns(host: SshHost, count: number, script: string): Promise<RunHandle[]> {
  return Promise.all(
    Array.from({ length: count }, () => host.startRun({ argv: ['sh', '-c', script], cwd: '/tmp' })),
  );
}

function expectNoThrottling(sshd: SshdHandle): void {
  expect(sshd.logText()).not.toContain('past MaxStartups');
  expect(sshd.logText()).not.toContain('no more sessions');
}

describe('the SSH connection pool', () => {
  it('runs 20 runs started at once on more than one connection, none failing on MaxSessions or MaxStartups', async () => {
    const sshd = await startSshd();
    const host = createSshHost(sshHostConfig(sshd, 'dash'));
    try {
      // Each run waits for its input to end, so all 20 hold a channel at the same time.
      const handles = await startRuns(host, 20, 'cat; echo "done $CATALYST_RUN_TAG"');
      expect(host.stats()).toMatchObject({ openChannels: 20, queued: 0 });
      await Promise.all(handles.map((handle) => handle.endInput()));
      const results = await Promise.all(handles.map((handle) => watchRun(handle).finish()));
      for (const [index, result] of results.entries()) {
        expect(result).toEqual({
          stdout: `done ${handles[index]?.runTag ?? ''}\n`,
          stderr: '',
          outcome: { kind: 'exited', code: 0, signal: null },
        });
      }
      const stats = host.stats();
      expect(stats.connectionsOpened).toBe(3);
      expect(stats).toMatchObject({ channelRefusals: 0, handshakeFailures: 0, peakHandshakesInFlight: 3 });
      expect(stats.handshakeAttempts).toBe(stats.connectionsOpened);
      expectNoThrottling(sshd);
    } finally {
      await host.close();
      await sshd.stop();
    }
  });

  it('learns a lower MaxSessions from a refused channel and moves to another connection', async () => {
    const sshd = await startSshd({ settings: { MaxSessions: 3 } });
    const host = createSshHost(sshHostConfig(sshd, 'dash'));
    try {
      const handles = await startRuns(host, 6, 'cat; echo ok');
      await Promise.all(handles.map((handle) => handle.endInput()));
      const results = await Promise.all(handles.map((handle) => watchRun(handle).finish()));
      expect(results.map((result) => result.outcome)).toEqual(
        Array.from({ length: 6 }, () => ({ kind: 'exited', code: 0, signal: null })),
      );
      const stats = host.stats();
      expect(stats.channelRefusals).toBeGreaterThan(0);
      expect(stats.connectionsOpened).toBeGreaterThanOrEqual(2);
      // Refusals are learned, not retried in a loop on the same connection.
      expect(stats.channelRefusals).toBeLessThanOrEqual(6);
      expect(sshd.logText()).toContain('no more sessions');
    } finally {
      await host.close();
      await sshd.stop();
    }
  });

  it('closes a connection that has been idle for idleMs, and opens a new one on demand', async () => {
    const sshd = await startSshd();
    const host = createSshHost(sshHostConfig(sshd, 'dash', { pool: { idleMs: 200 } }));
    try {
      expect(await host.homeDir()).toBe(sshd.users.dash.home);
      expect(host.stats().openConnections).toBe(1);
      await sshd.waitForLog(`Disconnected from user ${sshd.users.dash.name} `, 5000);
      expect(host.stats().openConnections).toBe(0);
      expect((await host.stat(sshd.users.dash.home)).kind).toBe('directory');
      expect(host.stats().connectionsOpened).toBe(2);
    } finally {
      await host.close();
      await sshd.stop();
    }
  });
});
