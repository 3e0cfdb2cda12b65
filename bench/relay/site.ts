/**
 * Everything the relay bench stands on, and its removal: the test kit's sshd (as the dash test user, whose login
 * shell prints nothing), the stand-in claude in a temp dir that user can read, a config dir with the hosts file
 * that points Catalyst's one SSH host at the stand-in, and an ideas root in the user's home. Cleanup runs in
 * reverse order and tries every step even when one fails.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { SshHostConfig } from '../../packages/backend/src/host/ssh/ssh-config.ts';
import { createTempDir } from '../../packages/testkit/src/claude-cli.ts';
import { startSshd, type SshdHandle, type SshdUser } from '../../packages/testkit/src/sshd.ts';

const STAND_IN_SOURCE = fileURLToPath(new URL('./stand-in.ts', import.meta.url));

export interface BenchSite {
  readonly sshd: SshdHandle;
  readonly user: SshdUser;
  /** Absolute, readable and executable by the test user. */
  readonly standInPath: string;
  /** Where the stand-in's dir is: a cwd that exists for the raw exec. */
  readonly standInDir: string;
  readonly ideasRoot: string;
  readonly configDir: string;
  readonly hostsFile: string;
  /** The same host as the hosts file says, for a bare ssh2 connection. */
  readonly hostConfig: SshHostConfig;
}

export class Cleanup {
  readonly #steps: { what: string; run: () => Promise<void> }[] = [];

  add(what: string, run: () => Promise<void>): void {
    this.#steps.push({ what, run });
  }

  /** Every step, newest first; returns what failed. */
  async runAll(): Promise<string[]> {
    const failures: string[] = [];
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step.run();
      } catch (error) {
        failures.push(`${step.what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failures;
  }
}

export async function prepareSite(cleanup: Cleanup): Promise<BenchSite> {
  const sshd = await startSshd();
  cleanup.add('stop sshd', () => sshd.stop());
  const user = sshd.users.dash;
  const { dir: standInDir, path: standInPath } = await installStandIn(cleanup);
  const config = await createTempDir('bench-relay-config');
  cleanup.add('remove the config dir', () => config.remove());
  const ideasRoot = join(user.home, `catalyst-bench-relay-${randomBytes(4).toString('hex')}`);
  // Created by the backend over SFTP as the test user; removed here, as root, whatever is left in it.
  cleanup.add('remove the ideas root', () => rm(ideasRoot, { recursive: true, force: true }));
  const hostConfig = {
    address: sshd.host,
    port: sshd.port,
    user: user.name,
    privateKeyPath: sshd.clientKeyPath,
    hostKey: sshd.hostKeyLine,
    claudePath: standInPath,
  };
  const hostsFile = join(config.path, 'hosts.json');
  const host = { name: 'vm', kind: 'ssh', ...hostConfig, ideasRoot };
  await writeFile(hostsFile, JSON.stringify({ hosts: [host], defaultHost: 'vm' }));
  return { sshd, user, standInPath, standInDir, ideasRoot, configDir: config.path, hostsFile, hostConfig };
}

/**
 * The stand-in, transpiled (it is TypeScript for tsc and eslint; the VM has only node), with a shebang naming this
 * very node: the test user's PATH under sshd has /usr/bin, but the bench should not depend on where node is
 * installed. mkdtemp makes the dir 0700; the test user must enter it.
 */
async function installStandIn(cleanup: Cleanup): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'catalyst-bench-relay-'));
  cleanup.add('remove the stand-in dir', () => rm(dir, { recursive: true, force: true }));
  await chmod(dir, 0o755);
  const path = join(dir, 'claude.mjs');
  const { outputText } = ts.transpileModule(await readFile(STAND_IN_SOURCE, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: STAND_IN_SOURCE,
  });
  await writeFile(path, `#!${process.execPath}\n${outputText}`, { mode: 0o755 });
  return { dir, path };
}
