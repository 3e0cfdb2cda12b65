import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  caught,
  createTempDir,
  findDescendants,
  opensshFingerprint,
  signalIfAlive,
  startSshd,
  stopAllSshd,
  type SshdHandle,
  type TempDir,
} from '@catalyst/testkit';
import { createHostFromEntry } from '../src/app.ts';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { createLocalSshConfigSources } from '../src/host/ssh/config/ssh-config-files.ts';
import { resolveAliasRoute } from '../src/host/ssh/ssh-config-route.ts';
import { openSshConnection } from '../src/host/ssh/ssh-connection.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import { createJumpChains } from '../src/host/ssh/ssh-jump-chains.ts';

// A host named by its ~/.ssh/config alias (issue 28), through real OpenSSH servers on loopback: a bastion that only
// forwards, a target behind it, an ssh-agent holding the only key, known_hosts as ssh reads it (hashed), and a key
// known nowhere refused with its fingerprint until a person's confirmation is written to Catalyst's own file.

const run = promisify(execFile);
let dir: TempDir;
let bastion: SshdHandle;
let second: SshdHandle;
let target: SshdHandle;
const hosts: { close(): Promise<void> }[] = [];
let agent: { socket: string; process: ChildProcess } | undefined;

beforeAll(async () => {
  dir = await createTempDir('ssh-config-hosts');
  // DEBUG1: sshd logs each direct-tcpip forward it opens, the proof that a connection went through it.
  [bastion, second, target] = await Promise.all([
    startSshd({ settings: { LogLevel: 'DEBUG1' } }),
    startSshd({ settings: { LogLevel: 'DEBUG1' } }),
    startSshd(),
  ]);
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  agent?.process.kill();
  agent = undefined;
});
afterAll(async () => {
  await stopAllSshd();
  await dir.remove();
});

function track(host: SshHost): SshHost {
  hosts.push(host);
  return host;
}

/** A Host block for one of the test sshds, as a person's ~/.ssh/config would have it. */
function hostBlock(alias: string, sshd: SshdHandle, lines: string[] = [], key = sshd.clientKeyPath): string {
  return [
    `Host ${alias}`,
    ...lines.map((line) => `  ${line}`),
    '  HostName 127.0.0.1',
    `  Port ${String(sshd.port)}`,
    `  User ${sshd.users.dash.name}`,
    `  IdentityFile ${key}`,
    '',
  ].join('\n');
}

/** Writes a config and a hashed known_hosts holding the given servers' keys; returns the config's path. */
async function writeSshConfig(name: string, blocks: string[], known: SshdHandle[]): Promise<string> {
  const knownHosts = join(dir.path, `${name}.known_hosts`);
  await writeFile(knownHosts, known.map((sshd) => `${sshd.hostKeyLine}\n`).join(''));
  await run('/usr/bin/ssh-keygen', ['-q', '-H', '-f', knownHosts]);
  const config = join(dir.path, `${name}.conf`);
  const common = [
    'Host *',
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile none',
    '  IdentityAgent none',
    '',
  ];
  await writeFile(config, [...blocks, ...common].join('\n'));
  return config;
}

function aliasHost(
  alias: string,
  configFile: string,
  catalystKnownHosts = join(dir.path, 'catalyst_known_hosts'),
): SshHost {
  return track(
    createSshHost({
      sshAlias: alias,
      sshConfigFile: configFile,
      knownHostsFile: catalystKnownHosts,
      pool: { connectAttempts: 1 },
    }),
  );
}

/** How many times a client logged in to the sshd so far. */
function bastionLogins(sshd: SshdHandle): number {
  return sshd.logText().match(/Accepted publickey/g)?.length ?? 0;
}

function forwardsTo(sshd: SshdHandle): RegExp {
  return new RegExp(
    `server_request_direct_tcpip: originator .* target 127\\.0\\.0\\.1 port ${String(sshd.port)}`,
  );
}

describe('a host named by its ~/.ssh/config alias', () => {
  it('connects through a ProxyJump bastion, with keys and hashed known_hosts from the config', async () => {
    const config = await writeSshConfig(
      'jump',
      [hostBlock('vm', target, ['ProxyJump bastion']), hostBlock('bastion', bastion)],
      [bastion, target],
    );
    const host = aliasHost('vm', config);
    expect(await host.homeDir()).toBe(target.users.dash.home);
    await bastion.waitForLog(forwardsTo(target));
  });

  it('keeps one bastion connection for a host’s connections, and opens a new one once it is gone', async () => {
    const config = await writeSshConfig(
      'shared-jump',
      [hostBlock('vm', target, ['ProxyJump bastion']), hostBlock('bastion', bastion)],
      [bastion, target],
    );
    const route = () =>
      resolveAliasRoute({
        alias: 'vm',
        sources: createLocalSshConfigSources(process.env),
        configFile: config,
        catalystKnownHosts: join(dir.path, 'catalyst_known_hosts'),
        defaults: { readyTimeoutMs: 20_000, keepaliveIntervalMs: 0, keepaliveCountMax: 3 },
      });
    const logins = () => bastionLogins(bastion);
    const before = logins();
    const chains = createJumpChains({ lingerMs: 60_000 });
    try {
      const first = await openSshConnection(await route(), chains);
      const second = await openSshConnection(await route(), chains);
      first.end();
      second.end();
      // Closed, then a reconnect within the linger: the same bastion connection again.
      const third = await openSshConnection(await route(), chains);
      expect(logins() - before).toBe(1);
      expect(bastion.logText().match(forwardsTo(target))?.length).toBeGreaterThan(0);
      // The jump's connection answers each packet at once, with what `ssh -W` sends: no sessions on it, ever.
      await bastion.waitForLog(/rtype no-more-sessions@openssh.com want_reply 0/);
      // The bastion's connection goes (its sshd killed, as a reboot would): the connection through it is lost, and
      // the next one logs in to the bastion again.
      for (const pid of await findDescendants(bastion.pid)) signalIfAlive(pid, 'SIGKILL');
      await third.lost;
      const fourth = await openSshConnection(await route(), chains);
      expect(logins() - before).toBe(2);
      fourth.end();
    } finally {
      chains.closeAll();
    }
  });

  it('goes through every hop of a multi-hop ProxyJump, in order', async () => {
    const config = await writeSshConfig(
      'hops',
      [
        hostBlock('vm', target, ['ProxyJump first,second']),
        hostBlock('first', bastion),
        hostBlock('second', second),
      ],
      [bastion, second, target],
    );
    expect(await aliasHost('vm', config).homeDir()).toBe(target.users.dash.home);
    await bastion.waitForLog(forwardsTo(second));
    await second.waitForLog(forwardsTo(target));
  });

  it('connects through a ProxyCommand (ssh -W through the bastion), and says what the command said when it fails', async () => {
    const viaSsh = await writeSshConfig(
      'proxy',
      [
        hostBlock('vm', target, [
          `ProxyCommand ssh -F ${join(dir.path, 'proxy.conf')} -o BatchMode=yes -W %h:%p bastion`,
        ]),
        hostBlock('bastion', bastion),
      ],
      [bastion, target],
    );
    expect(await aliasHost('vm', viaSsh).homeDir()).toBe(target.users.dash.home);
    await bastion.waitForLog(forwardsTo(target));

    const broken = await writeSshConfig(
      'proxy-broken',
      [hostBlock('vm', target, ["ProxyCommand sh -c 'echo no route to the lab network >&2; exit 3'"])],
      [target],
    );
    const error = await caught(aliasHost('vm', broken).homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_CONNECT_FAILED');
    expect(error instanceof Error && error.message).toContain(
      'exited with code 3: no route to the lab network',
    );
  });

  it('authenticates with the ssh-agent alone when no key file is configured', async () => {
    const socket = join(dir.path, 'agent.sock');
    const process = spawn('/usr/bin/ssh-agent', ['-D', '-a', socket], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    agent = { socket, process };
    await agentListening(process);
    await run('/usr/bin/ssh-add', ['-q', target.clientKeyPath], { env: { SSH_AUTH_SOCK: socket } });
    const lines = [
      `Host vm`,
      '  HostName 127.0.0.1',
      `  Port ${String(target.port)}`,
      `  User ${target.users.dash.name}`,
    ];
    const config = await writeSshConfig(
      'agent',
      [[...lines, `  IdentityAgent ${socket}`, ''].join('\n')],
      [target],
    );
    const host = aliasHost('vm', config);
    expect(await host.homeDir()).toBe(target.users.dash.home);
    // What the host's check says worked: the agent's key, not a file.
    expect(host.authenticatedWith?.()).toBe('the ssh-ed25519 key catalyst-test-client in the ssh-agent');
  });

  it('names an encrypted key file that no agent holds, and says to use the agent', async () => {
    const encrypted = join(dir.path, 'encrypted_ed25519');
    await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', encrypted]);
    const config = await writeSshConfig('encrypted', [hostBlock('vm', target, [], encrypted)], [target]);
    const error = await caught(aliasHost('vm', config).homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_AUTH_FAILED');
    expect(error instanceof Error && error.message).toContain(
      `the key ${encrypted} is encrypted: add it to your ssh-agent (\`ssh-add ${encrypted}\`)`,
    );
  });

  it('refuses a key known nowhere with its fingerprint, and connects once it is confirmed into Catalyst’s known_hosts', async () => {
    const config = await writeSshConfig('unknown', [hostBlock('vm', target)], []);
    const catalystKnownHosts = join(dir.path, 'confirmed_known_hosts');
    const first = aliasHost('vm', config, catalystKnownHosts);
    const error = await caught(first.homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_HOST_KEY_UNKNOWN');
    const fingerprint = await opensshFingerprint(target.hostKeyLine);
    expect(isCatalystError(error) && error.details).toMatchObject({
      presented: fingerprint,
      keyType: 'ssh-ed25519',
      knownHostsName: `[127.0.0.1]:${String(target.port)}`,
    });
    // What the app writes once a person confirmed the fingerprint: the key it was shown, under the name looked up.
    const details = isCatalystError(error) ? error.details : {};
    await appendFile(
      catalystKnownHosts,
      `${String(details['knownHostsName'])} ${String(details['publicKey'])}\n`,
    );
    expect(await first.homeDir()).toBe(target.users.dash.home);
    expect(await readFile(join(dir.path, 'unknown.known_hosts'), 'utf8')).toBe('');
  });

  it('refuses a key that differs from the one known_hosts holds, naming both fingerprints', async () => {
    const config = await writeSshConfig('changed', [hostBlock('vm', target)], []);
    const knownHosts = join(dir.path, 'changed.known_hosts');
    await writeFile(
      knownHosts,
      `[127.0.0.1]:${String(target.port)} ${bastion.hostKeyLine.split(' ').slice(1).join(' ')}\n`,
    );
    const error = await caught(aliasHost('vm', config).homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_HOST_KEY_MISMATCH');
    const message = error instanceof Error ? error.message : '';
    expect(message).toContain(await opensshFingerprint(target.hostKeyLine));
    expect(message).toContain(await opensshFingerprint(bastion.hostKeyLine));
  });

  it('names a failing jump host as the jump, with the code of what failed there', async () => {
    const config = await writeSshConfig(
      'jump-refused',
      // The bastion is offered the target's key, which only the target accepts.
      [
        hostBlock('vm', target, ['ProxyJump bastion']),
        hostBlock('bastion', bastion, [], target.clientKeyPath),
      ],
      [bastion, target],
    );
    const error = await caught(aliasHost('vm', config).homeDir());
    expect(isCatalystError(error) && error.code).toBe('SSH_AUTH_FAILED');
    expect(error instanceof Error && error.message).toMatch(
      /^through the jump host bastion \(.*@127\.0\.0\.1:\d+\) to vm \(/,
    );
  });

  it('is what a hosts file entry { kind: ssh, sshAlias } makes, with user and port winning like ssh -l and -p', async () => {
    const config = await writeSshConfig(
      'entry',
      [hostBlock('vm', target, ['User nobody', 'Port 1'])],
      [target],
    );
    const host = createHostFromEntry(
      {
        name: 'vm',
        kind: 'ssh',
        connect: {
          via: 'ssh-config',
          alias: 'vm',
          configFile: config,
          user: target.users.dash.name,
          port: target.port,
        },
        ideasRoot: '~/catalyst/ideas',
      },
      { configDir: dir.path },
    );
    hosts.push(host);
    expect(await host.homeDir()).toBe(target.users.dash.home);
  });

  it('names what it does not honour instead of dropping it', async () => {
    const config = await writeSshConfig(
      'ignored',
      [hostBlock('vm', target, ['ControlMaster auto', 'StrictHostKeyChecking accept-new'])],
      [target],
    );
    const route = await resolveAliasRoute({
      alias: 'vm',
      sources: createLocalSshConfigSources(process.env),
      configFile: config,
      catalystKnownHosts: join(dir.path, 'catalyst_known_hosts'),
      defaults: { readyTimeoutMs: 20_000, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3 },
    });
    // As the file writes it, with its line and file.
    expect(route.ignored.join('\n')).toContain(
      `ControlMaster (line 2) in ${config}: not used, Catalyst keeps its own connections and does not act on it`,
    );
    expect(route.ignored.join('\n')).toMatch(
      /StrictHostKeyChecking accept-new \(vm\) is ignored: Catalyst never trusts a key on first use/,
    );
  });
});

/** ssh-agent prints its environment lines once its socket is bound. */
async function agentListening(agentProcess: ChildProcess): Promise<void> {
  let printed = '';
  for await (const chunk of agentProcess.stdout ?? []) {
    printed += String(chunk);
    if (printed.includes('SSH_AUTH_SOCK=')) return;
  }
  throw new Error(`the ssh-agent ended before it listened: ${printed}`);
}
