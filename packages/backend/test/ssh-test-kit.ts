import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  RC_NOISE_STDERR,
  RC_NOISE_STDOUT,
  startSshd,
  type SshdHandle,
  type SshdUsers,
} from '@catalyst/testkit';
import type { SshFieldsHostConfig, SshHostConfig } from '../src/host/ssh/ssh-config.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import type { BackendFixtureInput, HostCleanupContext, HostCleanupSetup } from './host-cleanup.ts';
import { scanLocalProcesses } from './host-test-kit.ts';
import { bundledFixture } from './fixture-bundle.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/ssh-backend-run.ts', import.meta.url));

/**
 * Test wiring for the SSH host against the test kit's real sshd on 127.0.0.1. The "VM" is this machine, so the
 * processes a run starts remotely are visible to a local /proc scan.
 */

export type TestUser = keyof SshdUsers;

/** One sshd per test file, started on first use; stop it in the file's afterAll with stopAllSshd(). */
export function createSharedSshd(): () => Promise<SshdHandle> {
  let started: Promise<SshdHandle> | undefined;
  return () => (started ??= startSshd());
}

export function sshHostConfig(
  sshd: SshdHandle,
  user: TestUser,
  overrides: Partial<SshFieldsHostConfig> = {},
): SshFieldsHostConfig {
  return {
    address: sshd.host,
    port: sshd.port,
    user: sshd.users[user].name,
    privateKeyPath: sshd.clientKeyPath,
    hostKey: sshd.hostKeyLine,
    ...overrides,
  };
}

/**
 * The contract and cleanup setup for one login user; the scratch dir sits in that user's home. killRun's grace is
 * short, as in the local host's setup, so the cleanup proofs finish within their budget.
 */
export function sshHostSetup(getSshd: () => Promise<SshdHandle>, user: TestUser): HostCleanupSetup {
  return async (): Promise<HostCleanupContext> => {
    const sshd = await getSshd();
    const config = sshHostConfig(sshd, user);
    const host = createSshHost(config, { killGraceMs: 1000 });
    const scratchDir = `${sshd.users[user].home}/catalyst-test-${randomBytes(4).toString('hex')}`;
    await host.mkdirp(scratchDir);
    return {
      host,
      scratchDir,
      scanProcesses: scanLocalProcesses,
      // We are root on the same machine: remove the scratch dir directly, after the suite closed the host.
      cleanup: () => rm(scratchDir, { recursive: true, force: true }),
      ...(user === 'bash' ? { rcNoise: [RC_NOISE_STDOUT, RC_NOISE_STDERR] } : {}),
      // sysfs refuses new files even to root (host-test-kit.ts); /root is 0700 for everyone else.
      permissionDeniedPath: user === 'root' ? '/sys/catalyst-denied' : '/root/catalyst-denied',
      spawnBackend: (input) => spawnSshBackend(config, input),
    };
  };
}

/** One node process (the fixture bundled): SIGKILL closes its TCP connection, SIGSTOP freezes it open. */
function spawnSshBackend(config: SshHostConfig, input: BackendFixtureInput) {
  return spawn(process.execPath, [bundledFixture(fixture), JSON.stringify({ ...input, host: config })], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The sshd processes serving connections of `sshd` right now (its children and their children). */
export async function findSessionProcesses(sshd: SshdHandle): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const isBelowSshd = (pid: number): boolean => {
    const parent = parents.get(pid);
    return parent === sshd.pid || (parent !== undefined && parent > 1 && isBelowSshd(parent));
  };
  const found: number[] = [];
  for (const pid of parents.keys()) {
    const cmdline = await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('sshd:') && isBelowSshd(pid)) found.push(pid);
  }
  return found;
}
