import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedSshConfig } from './resolved-ssh-config.ts';
import { createLocalSshConfigSources } from './ssh-config-files.ts';
import { resolveSshConfig } from './ssh-config-resolve.ts';
import { completeTokenValues, expandOptionValue, type ExpandableOption } from './ssh-tokens.ts';

/**
 * The resolver against OpenSSH's own answer: each fixture under fixtures/ names its aliases in a `# aliases:` line,
 * and for each, `ssh -G -F fixture alias` and resolveSshConfig must agree on every field Catalyst resolves. The
 * fixtures are copied to a temporary HOME's .ssh/, so relative and `~/` Includes land there for both.
 */

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const CASES = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.conf'))
  .flatMap((name) => {
    const header = /^# aliases: (.+)$/m.exec(readFileSync(join(FIXTURES, name), 'utf8'));
    return (header?.[1]?.split(' ') ?? []).map((alias) => ({ name, alias }));
  });

let home = '';
let env: Record<string, string | undefined> = {};

beforeAll(async () => {
  const version = await run('ssh', ['-V']).then(
    (result) => result.stderr,
    (error: unknown) => {
      throw new Error(
        `these tests compare with OpenSSH's ssh -G; install openssh-client (scripts/setup): ${String(error)}`,
      );
    },
  );
  if (!version.startsWith('OpenSSH_9.2'))
    throw new Error(`the fixtures describe OpenSSH 9.2, found ${version}`);
  home = await mkdtemp(join(tmpdir(), 'catalyst-ssh-config-'));
  await cp(FIXTURES, join(home, '.ssh'), { recursive: true });
  // ssh refuses an included file that is group- or world-writable, which a checkout's umask may leave.
  await makePrivate(join(home, '.ssh'));
  env = {
    HOME: home,
    PATH: process.env.PATH,
    CATALYST_TEST_USER: 'tuser',
    SSH_AUTH_SOCK: '/tmp/catalyst-test-agent.sock',
    MY_AGENT: '/tmp/catalyst-my-agent.sock',
  };
});

afterAll(async () => {
  if (home !== '') await rm(home, { recursive: true, force: true });
});

async function makePrivate(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) await makePrivate(path);
    else await chmod(path, 0o644);
  }
}

/** `ssh -G` output as keyword → values (several for identityfile and certificatefile). */
async function askOpenSsh(file: string, alias: string): Promise<Map<string, string[]>> {
  const { stdout } = await run('ssh', ['-G', '-F', file, alias], { env });
  const fields = new Map<string, string[]>();
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space < 0) continue;
    const key = line.slice(0, space);
    fields.set(key, [...(fields.get(key) ?? []), line.slice(space + 1)]);
  }
  return fields;
}

/** The fields compared, in one shape for both sides. */
function describeResolved(resolved: ResolvedSshConfig) {
  return {
    user: resolved.user,
    hostname: resolved.hostname,
    port: resolved.port,
    identityFiles: resolved.identityFiles,
    certificateFiles: resolved.certificateFiles,
    identitiesOnly: resolved.identitiesOnly,
    identityAgent: resolved.identityAgent.setting,
    proxyJump: resolved.proxyJump,
    proxyCommand: resolved.proxyCommand,
    connectTimeout: resolved.connectTimeoutSeconds,
    serverAliveInterval: resolved.serverAliveIntervalSeconds,
    serverAliveCountMax: resolved.serverAliveCountMax,
    hostKeyAlias: resolved.hostKeyAlias,
    userKnownHostsFiles: resolved.userKnownHostsFiles,
    globalKnownHostsFiles: resolved.globalKnownHostsFiles,
    strictHostKeyChecking: resolved.strictHostKeyChecking,
  };
}

const STRICT: Readonly<Record<string, string>> = {
  true: 'yes',
  false: 'no',
  ask: 'ask',
  'accept-new': 'accept-new',
};

/**
 * ssh -G prints IdentityFile, CertificateFile, ProxyCommand and GlobalKnownHostsFile before expanding them; they are
 * expanded here with ssh's own values for %h, %p, %r…, as ssh does when it connects.
 */
function describeOpenSsh(fields: Map<string, string[]>, alias: string) {
  const one = (key: string) => fields.get(key)?.[0];
  const all = (key: string) => fields.get(key) ?? [];
  const user = one('user') ?? '';
  const hostKeyAlias = one('hostkeyalias');
  const account = userInfo();
  const tokens = completeTokenValues({
    ...{ d: account.homedir, i: String(account.uid), l: hostname(), u: account.username },
    ...{ h: one('hostname') ?? '', k: hostKeyAlias ?? alias, n: alias, p: one('port') ?? '', r: user },
  });
  const context = {
    tokens,
    env,
    localUser: { name: account.username, home: account.homedir },
    at: undefined,
  };
  const expand = (option: ExpandableOption) => (value: string) => expandOptionValue(option, value, context);
  const list = (key: string) => (one(key) === 'none' ? [] : (one(key)?.split(' ') ?? []));
  const [proxyCommand, timeout] = [one('proxycommand'), one('connecttimeout')];
  return {
    user,
    hostname: one('hostname'),
    port: Number(one('port')),
    identityFiles: all('identityfile')
      .filter((file) => file.toLowerCase() !== 'none')
      .map(expand('identityfile')),
    certificateFiles: all('certificatefile').map(expand('certificatefile')),
    identitiesOnly: one('identitiesonly') === 'yes',
    identityAgent: one('identityagent'),
    proxyJump: one('proxyjump'),
    proxyCommand: proxyCommand === undefined ? undefined : expand('proxycommand')(proxyCommand),
    connectTimeout: timeout === 'none' ? undefined : Number(timeout),
    serverAliveInterval: Number(one('serveraliveinterval')),
    serverAliveCountMax: Number(one('serveralivecountmax')),
    hostKeyAlias,
    userKnownHostsFiles: list('userknownhostsfile'),
    globalKnownHostsFiles: list('globalknownhostsfile').map(expand('globalknownhostsfile')),
    strictHostKeyChecking: STRICT[one('stricthostkeychecking') ?? ''],
  };
}

describe('resolveSshConfig agrees with ssh -G (OpenSSH 9.2)', () => {
  it('has fixtures', () => {
    expect(CASES.length).toBeGreaterThan(40);
  });

  it.each(CASES)('$name $alias', async ({ name, alias }) => {
    const file = join(home, '.ssh', name);
    const [fields, resolved] = await Promise.all([
      askOpenSsh(file, alias),
      resolveSshConfig(alias, createLocalSshConfigSources(env), { configFile: file }),
    ]);
    expect(describeResolved(resolved)).toEqual(describeOpenSsh(fields, alias));
  });
});

/**
 * Configs both must refuse; the file is written to ~/.ssh/refused.conf (and refused-inc.conf, mode 0666: Debian's
 * ssh accepts a group-writable file whose group is the owner's own, a patch Catalyst does not follow).
 */
const REFUSED = [
  { what: 'an unknown keyword', text: 'Host x\n  UseKeychain yes\n', message: 'Bad configuration option' },
  {
    what: 'a group-writable include',
    text: 'Include refused-inc.conf\n',
    message: 'Bad owner or permissions',
  },
  {
    what: 'an include loop',
    text: 'Include refused.conf\n',
    message: 'Too many recursive configuration includes',
  },
  { what: 'an unknown token', text: 'UserKnownHostsFile ~/%x\n', message: 'unknown token %x' },
  { what: 'a ProxyJump with a path', text: 'ProxyJump ssh://h/x\n', message: 'Invalid ProxyJump' },
  { what: 'port 0', text: 'Port 0\n', message: "Bad port '0'" },
  { what: '"all" with more', text: 'Match all host x\n', message: 'cannot be combined' },
];

describe('resolveSshConfig refuses what ssh -G refuses', () => {
  it.each(REFUSED)('$what', async ({ text, message }) => {
    const file = join(home, '.ssh', 'refused.conf');
    await writeFile(file, text, { mode: 0o644 });
    await writeFile(join(home, '.ssh', 'refused-inc.conf'), 'Port 2\n');
    await chmod(join(home, '.ssh', 'refused-inc.conf'), 0o666);
    const exitCode = await run('ssh', ['-G', '-F', file, 'x'], { env }).then(
      () => 0,
      (error: unknown) => (error instanceof Error && 'code' in error ? error.code : 'unknown'),
    );
    expect(exitCode).toBe(255);
    await expect(
      resolveSshConfig('x', createLocalSshConfigSources(env), { configFile: file }),
    ).rejects.toThrow(message);
  });
});
