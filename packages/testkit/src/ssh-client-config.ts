import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SshdHandle, SshdUser } from './sshd.ts';

/**
 * A person's ~/.ssh/config for the test kit's sshd, as the hosts tests hand it to Catalyst (CATALYST_SSH_CONFIG_FILE):
 * one `Host` block per alias, each logging in as its user with the sshd's client key, and an empty known_hosts of
 * its own, so the host key is known nowhere until a test confirms it. No global known_hosts, no agent.
 */
export async function writeSshClientConfig(
  sshd: SshdHandle,
  options: { dir: string; hosts: Readonly<Record<string, SshdUser>> },
): Promise<{ configPath: string; knownHostsPath: string }> {
  const knownHostsPath = join(options.dir, 'known_hosts');
  await writeFile(knownHostsPath, '');
  const blocks = Object.entries(options.hosts).map(([alias, user]) =>
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${String(sshd.port)}`,
      `  User ${user.name}`,
      `  IdentityFile ${sshd.clientKeyPath}`,
    ].join('\n'),
  );
  const common = [
    'Host *',
    `  UserKnownHostsFile ${knownHostsPath}`,
    '  GlobalKnownHostsFile none',
    '  IdentityAgent none',
  ];
  const configPath = join(options.dir, 'ssh_config');
  await writeFile(configPath, [...blocks, ...common, ''].join('\n'));
  return { configPath, knownHostsPath };
}
