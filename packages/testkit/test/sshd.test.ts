import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../src/claude-cli.ts';
import { findProcesses } from '../src/process-scan.ts';
import { isProcessGone, signalIfAlive } from '../src/process-tree.ts';
import { runTool, type ToolResult } from '../src/run-tool.ts';
import { RC_NOISE_STDERR, RC_NOISE_STDOUT, startSshd, stopAllSshd, type SshdHandle } from '../src/sshd.ts';
import { waitUntil } from '../src/wait-until.ts';

// Every check goes through the system OpenSSH client with StrictHostKeyChecking=yes and only the pinned
// known_hosts file, so a passing login also proves hostKeyLine.

let sshd: SshdHandle;
let work: TempDir;
let fileCount = 0;

beforeAll(async () => {
  sshd = await startSshd();
  work = await createTempDir('sshd-test');
});

afterAll(async () => {
  const stopped = await stopAllSshd();
  await work.remove();
  expect(stopped, 'only the shared sshd should be left for afterAll').toBe(1);
});

interface SshTarget {
  server: SshdHandle;
  user: string;
  keyPath?: string;
  /** Defaults to a file holding exactly `server.hostKeyLine`. */
  knownHostsLine?: string;
}

async function sshArgs(target: SshTarget, command: string): Promise<string[]> {
  const knownHosts = join(work.path, `known_hosts-${String(++fileCount)}`);
  await writeFile(knownHosts, `${target.knownHostsLine ?? target.server.hostKeyLine}\n`);
  return [
    ['-F', '/dev/null', '-p', String(target.server.port)],
    ['-i', target.keyPath ?? target.server.clientKeyPath],
    ['-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=yes'],
    ['-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null'],
    ['-l', target.user, '--', '127.0.0.1', command],
  ].flat();
}

/** ssh exits 255 for its own failures (refused key, host key mismatch). */
async function runSsh(target: SshTarget, command: string): Promise<ToolResult> {
  return runTool('/usr/bin/ssh', await sshArgs(target, command), { acceptCodes: [255] });
}

async function createStrangerKey(): Promise<{ path: string; publicKey: string; fingerprint: string }> {
  const path = join(work.path, `stranger-${String(++fileCount)}`);
  await runTool('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path]);
  const publicKey = (await readFile(`${path}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ');
  const { stdout } = await runTool('/usr/bin/ssh-keygen', ['-l', '-f', `${path}.pub`]);
  const fingerprint = stdout.split(' ')[1];
  if (fingerprint === undefined) throw new Error(`unexpected ssh-keygen -l output: ${stdout}`);
  return { path, publicKey, fingerprint };
}

async function connectOutcome(port: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return 'connected';
  } catch (error) {
    return error instanceof Error && 'code' in error ? String(error.code) : String(error);
  } finally {
    socket.destroy();
  }
}

describe('startSshd', () => {
  it('admits each user with the client key, pinned by hostKeyLine, under the user’s shell', async () => {
    const probe = 'readlink /proc/$$/exe && id -un && printf "%s\\n" "$HOME" && stat -c %U "$HOME"';
    const users = [sshd.users.bash, sshd.users.dash, sshd.users.root];
    const results = await Promise.all(
      users.map(async (user) => ({ user, result: await runSsh({ server: sshd, user: user.name }, probe) })),
    );
    for (const { user, result } of results) {
      expect(result.code, `${user.name}: ${result.stderr}`).toBe(0);
      const shell = await realpath(user.shell);
      // uid 0 reads back as root whatever the login name (a worker's root is another name for uid 0).
      const owner = user === sshd.users.root ? 'root' : user.name;
      expect(result.stdout.trimEnd().split('\n').slice(-4)).toEqual([shell, owner, user.home, owner]);
    }
    expect(basename(await realpath(sshd.users.bash.shell))).toBe('bash');
    expect(basename(await realpath(sshd.users.dash.shell))).toBe('dash');
    expect(sshd.hostKeyLine).toMatch(
      new RegExp(`^\\[127\\.0\\.0\\.1\\]:${String(sshd.port)} ssh-ed25519 AAAA\\S+$`),
    );
    expect(sshd.clientPrivateKey).toContain('BEGIN OPENSSH PRIVATE KEY');
  });

  it('puts the bash user’s rc noise into both streams, and none into the dash user’s', async () => {
    const [bash, dash] = await Promise.all([
      runSsh({ server: sshd, user: sshd.users.bash.name }, 'echo payload'),
      runSsh({ server: sshd, user: sshd.users.dash.name }, 'echo payload'),
    ]);
    expect(bash.stdout).toBe(`${RC_NOISE_STDOUT}\npayload\n`);
    expect(bash.stderr).toContain(RC_NOISE_STDERR);
    expect(dash.stdout).toBe('payload\n');
    expect(dash.stderr).not.toContain(RC_NOISE_STDERR);
  });

  it('refuses a client key it was not given, and logs the refusal', async () => {
    const stranger = await createStrangerKey();
    const user = sshd.users.bash.name;
    const result = await runSsh({ server: sshd, user, keyPath: stranger.path }, 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toContain('Permission denied (publickey)');
    expect(await sshd.waitForLog(stranger.fingerprint)).toContain(
      `Failed publickey for ${user} from 127.0.0.1`,
    );
  });

  it('is refused by a client pinning another host key, so the other tests check the pin', async () => {
    const stranger = await createStrangerKey();
    const knownHostsLine = `[127.0.0.1]:${String(sshd.port)} ${stranger.publicKey}`;
    const result = await runSsh({ server: sshd, user: sshd.users.dash.name, knownHostsLine }, 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toContain('Host key verification failed');
  });

  it('applies settings over its defaults: PermitRootLogin no refuses root, admits others', async () => {
    const strict = await startSshd({ settings: { PermitRootLogin: 'no', MaxSessions: 2 } });
    try {
      const [root, dash] = await Promise.all([
        runSsh({ server: strict, user: strict.users.root.name }, 'true'),
        runSsh({ server: strict, user: strict.users.dash.name }, 'echo ok'),
      ]);
      expect(root.code).toBe(255);
      expect(root.stderr).toContain('Permission denied (publickey)');
      expect(dash.stdout).toBe('ok\n');
      expect(strict.port).not.toBe(sshd.port);
    } finally {
      await strict.stop();
    }
  });

  it('fails in sshd’s words on a setting it rejects, and refuses to move what the kit fixes', async () => {
    await expect(startSshd({ settings: { MaxSessions: 'many' } })).rejects.toThrow(
      /sshd_config line \d+: MaxSessions integer value invalid/,
    );
    await expect(startSshd({ settings: { ListenAddress: '0.0.0.0' } })).rejects.toThrow(
      /ListenAddress is fixed/,
    );
  });

  it('stop() ends sshd and its sessions, frees the port, removes its files, and may repeat', async () => {
    const doomed = await startSshd();
    const marker = `3600.${String(doomed.port)}`;
    const args = await sshArgs({ server: doomed, user: doomed.users.dash.name }, `exec sleep ${marker}`);
    const client = spawn('/usr/bin/ssh', args, { stdio: 'ignore' });
    const clientExit = once(client, 'exit');
    let sleepPid = 0;
    try {
      // Nothing announces that a process started elsewhere on the machine, hence the poll.
      await waitUntil(
        async () => {
          const found = (await findProcesses(`sleep ${marker}`)).find((p) => p.cmdline.startsWith('sleep '));
          sleepPid = found?.pid ?? 0;
          return found !== undefined;
        },
        { timeoutMs: 10_000, what: 'the remote sleep to start' },
      );
      await Promise.all([doomed.stop(), doomed.stop()]);
      expect(await isProcessGone(doomed.pid)).toBe(true);
      expect(await isProcessGone(sleepPid), 'the session’s command outlived stop()').toBe(true);
      expect(await connectOutcome(doomed.port)).toBe('ECONNREFUSED');
      expect(existsSync(doomed.clientKeyPath)).toBe(false);
      expect(await clientExit, 'the client sees its connection drop').toEqual([255, null]);
      // The listener's command line names the config in this directory (so did the client's, now exited).
      expect(await findProcesses(dirname(doomed.clientKeyPath))).toEqual([]);
      await doomed.stop();
    } finally {
      client.kill('SIGKILL');
      if (sleepPid !== 0) signalIfAlive(sleepPid, 'SIGKILL');
    }
  });
});
