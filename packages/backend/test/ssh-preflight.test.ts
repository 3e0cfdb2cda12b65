import { chmod, chown, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claudeVersion, installSharedClaude, stopAllSshd, type SshdUser } from '@catalyst/testkit';
import type { SshFieldsHostConfig } from '../src/host/ssh/ssh-config.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import { createSharedSshd, sshHostConfig, type TestUser } from './ssh-test-kit.ts';

// Finding claude on the VM (ssh-field-notes.md §9), and the SSH host's files and home beyond the contract. The
// "VM" is this machine and we are root, so fixtures are planted in the test users' homes directly.

const getSshd = createSharedSshd();
const hosts: SshHost[] = [];
const planted: string[] = [];

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await Promise.all(planted.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});
afterAll(async () => {
  await stopAllSshd();
});

async function openHost(user: TestUser, overrides: Partial<SshFieldsHostConfig> = {}): Promise<SshHost> {
  const host = createSshHost(sshHostConfig(await getSshd(), user, overrides));
  hosts.push(host);
  return host;
}

/** Writes a file owned by `user`; `path` is removed after the test, or `cleanupPath` if given. */
async function plant(
  user: SshdUser,
  path: string,
  content: string,
  options: { mode: number; cleanupPath?: string },
) {
  const { uid, gid } = await stat(user.home);
  const dir = path.slice(0, path.lastIndexOf('/'));
  planted.push(options.cleanupPath ?? path);
  await mkdir(dir, { recursive: true });
  await chown(dir, uid, gid);
  await writeFile(path, content);
  await chmod(path, options.mode);
  await chown(path, uid, gid);
}

const FAKE_CLAUDE = '#!/bin/sh\necho "9.9.9 (Claude Code)"\n';

describe('preflight over SSH', () => {
  it('a configured claude path wins, its version is read, and the result is cached', async () => {
    // The copy every test user can reach: the clone itself may sit where only root can enter.
    const claudePath = await installSharedClaude();
    const host = await openHost('bash', { claudePath });
    const preflight = await host.preflight();
    expect(preflight).toMatchObject({ claudePath, foundVia: 'config', canRunWrapper: true });
    expect(preflight.version).toContain(claudeVersion());
    expect(preflight.problems).toEqual([]);
    expect(await host.preflight()).toBe(preflight);
  });

  it('a wrong configured path is reported, not replaced by a search', async () => {
    const host = await openHost('dash', { claudePath: '/opt/nowhere/claude' });
    const preflight = await host.preflight();
    expect(preflight.claudePath).toBeUndefined();
    expect(preflight.problems.join('\n')).toContain('/opt/nowhere/claude');
  });

  it("finds claude in a usual install location that sshd's PATH lacks, and reports sshd's PATH", async () => {
    const { users } = await getSshd();
    const path = `${users.dash.home}/.local/bin/claude`;
    await plant(users.dash, path, FAKE_CLAUDE, { mode: 0o755, cleanupPath: `${users.dash.home}/.local` });
    const preflight = await (await openHost('dash')).preflight();
    expect(preflight).toMatchObject({
      claudePath: path,
      foundVia: 'known-location',
      version: '9.9.9 (Claude Code)',
    });
    expect(preflight.path.split(':')).not.toContain(`${users.dash.home}/.local/bin`);
  });

  it("falls back to the login shell's PATH (here set in ~/.bash_profile)", async () => {
    const { users } = await getSshd();
    const path = `${users.bash.home}/login-only-bin/claude`;
    await plant(users.bash, path, FAKE_CLAUDE, {
      mode: 0o755,
      cleanupPath: `${users.bash.home}/login-only-bin`,
    });
    const profile = 'PATH="$HOME/login-only-bin:$PATH"\n';
    await plant(users.bash, `${users.bash.home}/.bash_profile`, profile, { mode: 0o644 });
    const preflight = await (await openHost('bash')).preflight();
    expect(preflight).toMatchObject({
      claudePath: path,
      foundVia: 'login-shell',
      version: '9.9.9 (Claude Code)',
    });
  });

  it('reports a VM without claude, while the wrapper can still run there', async () => {
    const preflight = await (await openHost('root')).preflight();
    expect(preflight.claudePath).toBeUndefined();
    expect(preflight.canRunWrapper).toBe(true);
    expect(preflight.problems).toEqual([
      'claude was not found on PATH, in the usual install locations, or on the login shell PATH',
    ]);
  });
});

describe('the SSH host beyond the contract', () => {
  it('homeDir() is the login user’s home, from SFTP', async () => {
    const { users } = await getSshd();
    expect(await (await openHost('dash')).homeDir()).toBe(users.dash.home);
    expect(await (await openHost('root')).homeDir()).toBe(users.root.home);
  });

  it('keeps the mode of a 0600 file it overwrites atomically', async () => {
    const { users } = await getSshd();
    const path = `${users.dash.home}/catalyst-secret-${String(process.pid)}.json`;
    await plant(users.dash, path, 'old', { mode: 0o600 });
    const host = await openHost('dash');
    await host.writeFileAtomic(path, 'new');
    expect((await host.readFile(path)).toString()).toBe('new');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
