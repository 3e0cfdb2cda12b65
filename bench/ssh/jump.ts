import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalSshConfigSources } from '../../packages/backend/src/host/ssh/config/ssh-config-files.ts';
import { resolveAliasRoute } from '../../packages/backend/src/host/ssh/ssh-config-route.ts';
import { openSshConnection, type SshConnection } from '../../packages/backend/src/host/ssh/ssh-connection.ts';
import { createJumpChains } from '../../packages/backend/src/host/ssh/ssh-jump-chains.ts';
import type { SshdHandle } from '../../packages/testkit/src/sshd.ts';

/**
 * A new connection straight to the target against one through a jump host (ProxyJump, issue 28): both resolved
 * from an ssh_config alias as a person's host would be, each until the first byte of a bare `echo`. A cold jump
 * costs the bastion's own handshake plus a forward; a host's later connections (the pool's next one, a reconnect)
 * go through the bastion connection it keeps (ssh-jump-chains.ts) and cost the forward alone. The goal is that the
 * jump adds less than one direct connection's time.
 */

const ROUNDS = 20;

export async function measureJump(
  options: { target: SshdHandle; bastion: SshdHandle; dir: string },
  firstByte: (connection: SshConnection, started: number) => Promise<number>,
  median: (values: number[]) => number,
): Promise<{ direct: number; jumped: number; kept: number }> {
  const { target, bastion, dir } = options;
  const knownHosts = join(dir, 'known_hosts');
  await writeFile(knownHosts, `${target.hostKeyLine}\n${bastion.hostKeyLine}\n`);
  const block = (alias: string, sshd: SshdHandle, extra: string[]) =>
    [
      `Host ${alias}`,
      ...extra,
      '  HostName 127.0.0.1',
      `  Port ${String(sshd.port)}`,
      `  User ${sshd.users.dash.name}`,
      `  IdentityFile ${sshd.clientKeyPath}`,
    ].join('\n');
  const config = join(dir, 'ssh_config');
  await writeFile(
    config,
    [
      block('direct', target, []),
      block('jumped', target, ['  ProxyJump bastion']),
      block('bastion', bastion, []),
      `Host *\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile none\n  IdentityAgent none\n`,
    ].join('\n'),
  );
  const route = (alias: string) =>
    resolveAliasRoute({
      alias,
      sources: createLocalSshConfigSources(process.env),
      configFile: config,
      catalystKnownHosts: join(dir, 'catalyst_known_hosts'),
      defaults: { readyTimeoutMs: 20_000, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3 },
    });
  const direct: number[] = [];
  const jumped: number[] = [];
  const kept: number[] = [];
  // As one host keeps it: the first connection opens the bastion's, the later ones go through it.
  const chains = createJumpChains();
  const warmUp = await openSshConnection(await route('jumped'), chains);
  warmUp.end();
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const [alias, times, through] of [
        ['direct', direct, undefined],
        ['jumped', jumped, undefined],
        ['jumped', kept, chains],
      ] as const) {
        const started = performance.now();
        const connection = await openSshConnection(await route(alias), through);
        times.push(await firstByte(connection, started));
        connection.end();
      }
    }
  } finally {
    chains.closeAll();
  }
  return { direct: median(direct), jumped: median(jumped), kept: median(kept) };
}
