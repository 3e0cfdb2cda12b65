import type { StartOptions } from '../src/app.ts';
import type { SshPoolLimits } from '../src/host/ssh/ssh-config.ts';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir, type SshdHandle, type SshdUser, type TempDir } from '@catalyst/testkit';

/**
 * A Catalyst's settings for the test kit's VM, with nothing of vitest (benchmarks and child processes use it too):
 * one SSH host, the test kit's sshd as a test user whose claude points at the scripted model.
 */

export interface ServiceOptions {
  sshd: SshdHandle;
  user: SshdUser;
  claudePath: string;
  env?: Record<string, string>;
  /** Reuse a previous instance's config dir and ideas root: a restarted backend. */
  reuse?: { configDir: TempDir; ideasRoot: string };
  /** The built web app, served from the same origin (browser tests). */
  staticDir?: string;
  /** Web Push's test settings (the test kit's push service on http://127.0.0.1). */
  push?: StartOptions['push'];
  /** The SSH host's pool limits (a host with few channels), else the defaults. */
  pool?: Partial<SshPoolLimits>;
}

/** A Catalyst's settings for the test kit's VM: its config dir, the ideas root on the VM, and its environment. */
export async function prepareService(
  options: ServiceOptions,
): Promise<{ configDir: TempDir; ideasRoot: string; env: Record<string, string> }> {
  const configDir = options.reuse?.configDir ?? (await createTempDir('catalyst-config'));
  const ideasRoot =
    options.reuse?.ideasRoot ?? join(options.user.home, `catalyst-e2e-${randomBytes(4).toString('hex')}`);
  const hostsFile = join(configDir.path, 'hosts.json');
  const host = {
    name: 'vm',
    kind: 'ssh',
    address: options.sshd.host,
    port: options.sshd.port,
    user: options.user.name,
    privateKeyPath: options.sshd.clientKeyPath,
    hostKey: options.sshd.hostKeyLine,
    claudePath: options.claudePath,
    ideasRoot,
  };
  await writeFile(hostsFile, JSON.stringify({ hosts: [host], defaultHost: 'vm' }));
  const env = {
    CATALYST_PORT: '0',
    CATALYST_CONFIG_DIR: configDir.path,
    CATALYST_CONFIG_FILE: hostsFile,
    CATALYST_LOG_LEVEL: 'silent',
    ...options.env,
  };
  return { configDir, ideasRoot, env };
}
