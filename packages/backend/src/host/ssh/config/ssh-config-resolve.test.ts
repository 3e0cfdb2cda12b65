import { describe, expect, it } from 'vitest';
import { CatalystError } from '../../../core/catalyst-error.ts';
import { createMemorySshConfigSources, type MemorySourcesOptions } from './ssh-config-memory-sources.ts';
import { resolveSshConfig } from './ssh-config-resolve.ts';

const CONFIG = '/home/ann/.ssh/config';

function sources(files: MemorySourcesOptions['files'], extra: Partial<MemorySourcesOptions> = {}) {
  return createMemorySshConfigSources({ env: { HOME: '/home/ann' }, ...extra, files });
}

async function resolve(text: string, alias = 'web', extra: Partial<MemorySourcesOptions> = {}) {
  return resolveSshConfig(alias, sources({ [CONFIG]: text }, extra));
}

async function captureRejection(promise: Promise<unknown>): Promise<CatalystError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (reason: unknown) => reason,
  );
  if (!(error instanceof CatalystError)) throw error;
  return error;
}

describe('resolveSshConfig errors', () => {
  it('refuses an unknown keyword, even in a block that does not apply, naming file and line', async () => {
    const error = await captureRejection(resolve('Host other\n  Port 2\n  UseKeychain yes\n'));
    expect(error.code).toBe('SSH_CONFIG_INVALID');
    expect(error.message).toBe(`${CONFIG} line 3: Bad configuration option: usekeychain`);
    expect(error.details).toEqual({ file: CONFIG, line: 3 });
  });

  it('accepts an unknown keyword that an earlier applying IgnoreUnknown lists', async () => {
    await expect(resolve('IgnoreUnknown UseKeychain,AddKeys*\nUseKeychain yes\n')).resolves.toMatchObject({
      hostname: 'web',
    });
    await expect(resolve('Host x\n  IgnoreUnknown UseKeychain\nHost *\n  UseKeychain yes\n')).rejects.toThrow(
      'Bad configuration option',
    );
  });

  it('stops an Include that goes deeper than 16 files', async () => {
    const error = await captureRejection(resolve('Include ~/.ssh/config\n'));
    expect(error.message).toBe(`${CONFIG} line 1: Too many recursive configuration includes`);
  });

  it('reads files included from a block that does not apply, for their errors only', async () => {
    const files = (extra: string) => ({
      [CONFIG]: 'Host other\n  Include extra\n',
      '/home/ann/.ssh/extra': extra,
    });
    await expect(
      resolveSshConfig('web', sources(files('Port 2\nHost *\n  Port 3\n'))),
    ).resolves.toMatchObject({
      port: 22,
    });
    await expect(resolveSshConfig('web', sources(files('Bogus 1\n')))).rejects.toThrow(
      '/home/ann/.ssh/extra line 1: Bad configuration option: bogus',
    );
  });

  it('refuses an included file that is group-writable or someone else’s, and a bad ~/.ssh/config', async () => {
    const included = '/home/ann/.ssh/extra';
    const withExtra = (file: { uid?: number; mode?: number }) =>
      resolveSshConfig(
        'web',
        sources({ [CONFIG]: 'Include extra\n', [included]: { text: 'Port 2\n', ...file } }),
      );
    expect((await captureRejection(withExtra({ mode: 0o100664 }))).message).toBe(
      `${CONFIG} line 1: Bad owner or permissions on ${included}`,
    );
    await expect(withExtra({ uid: 1001 })).rejects.toThrow('Bad owner or permissions');
    await expect(withExtra({ uid: 0, mode: 0o100644 })).resolves.toMatchObject({ port: 2 });
    const loose = sources({ [CONFIG]: { text: 'Port 2\n', mode: 0o100666 } });
    await expect(resolveSshConfig('web', loose)).rejects.toThrow(`Bad owner or permissions on ${CONFIG}`);
  });

  it('refuses an unknown %token where the value is used, naming its line', async () => {
    const error = await captureRejection(resolve('Host web\n  IdentityFile ~/.ssh/id_%x\n'));
    expect(error.message).toBe(`${CONFIG} line 2: unknown token %x in "/home/ann/.ssh/id_%x"`);
    await expect(resolve('Host other\n  IdentityFile ~/.ssh/id_%x\n')).resolves.toBeDefined();
    await expect(resolve('HostName %r.example\n')).rejects.toThrow('line 1: unknown token %r');
  });

  it('refuses bad values as ssh does', async () => {
    await expect(resolve('Port 0\n')).rejects.toThrow("line 1: Bad port '0'.");
    await expect(resolve('ConnectTimeout 5x\n')).rejects.toThrow('invalid time value');
    await expect(resolve('IdentitiesOnly maybe\n')).rejects.toThrow('unsupported option "maybe"');
    await expect(resolve('User a b\n')).rejects.toThrow('extra arguments at end of line');
    await expect(resolve('UserKnownHostsFile a none\n')).rejects.toThrow('"none" argument must appear alone');
    await expect(resolve('ProxyJump ssh://h/path\n')).rejects.toThrow('Invalid ProxyJump');
    await expect(resolve('IdentityAgent ${NOT_SET}\n')).rejects.toThrow('${NOT_SET} has no value');
    await expect(resolve('Match host\n')).rejects.toThrow('Missing Match criteria for host');
    await expect(resolve('Match all host x\n')).rejects.toThrow('cannot be combined');
    await expect(resolve('Match foo x\n')).rejects.toThrow('Unsupported Match attribute foo');
    const many = Array.from({ length: 101 }, (_, index) => `IdentityFile /k${index}`).join('\n');
    await expect(resolve(many)).rejects.toThrow(
      'line 101: Too many identityfile entries specified (max 100).',
    );
  });

  it('refuses a missing -F file, a name with shell characters and a jump to itself', async () => {
    await expect(resolveSshConfig('web', sources({}), { configFile: '/nope' })).rejects.toThrow(
      "Can't open user config file /nope",
    );
    await expect(resolve('', 'a;b')).rejects.toThrow('hostname contains invalid characters');
    await expect(resolve('Host web\n  ProxyJump web\n')).rejects.toThrow('jumphost loop via web');
    await expect(resolve('Host web\n  ProxyJump other@web\n')).resolves.toMatchObject({
      proxyJump: 'other@web',
    });
  });
});

describe('resolveSshConfig Match exec', () => {
  it('refuses a Match exec it would run unless the caller opts in', async () => {
    const text = 'Host web\n  HostName h.example\nMatch exec "test %h = %n"\n  Port 2\n';
    const error = await captureRejection(resolve(text));
    expect(error.code).toBe('SSH_CONFIG_UNSUPPORTED');
    expect(error.message).toContain(`${CONFIG} line 3: Match exec would run "test h.example = web"`);
    const commands: string[] = [];
    const runMatchExec = (command: string) => Promise.resolve(commands.push(command) > 0);
    await expect(resolve(text, 'web', { runMatchExec })).resolves.toMatchObject({ port: 2 });
    expect(commands).toEqual(['test h.example = web']);
  });

  it('needs no opt-in when an earlier criterion already failed, as ssh skips the command', async () => {
    await expect(resolve('Match host nothing exec "false"\n  Port 2\n')).resolves.toMatchObject({ port: 22 });
  });
});

describe('resolveSshConfig notes and other options', () => {
  it('keeps options Catalyst does not use, the first value of each, every line of the ones that add up', async () => {
    const resolved = await resolve(
      'Host web\n  ControlMaster auto\n  ControlMaster no\n  LocalForward 1 h:1\n  LocalForward 2 h:2\n  KeepAlive no\n',
    );
    expect(resolved.otherOptions.map(({ keyword, value, at }) => [keyword, value, at.line])).toEqual([
      ['controlmaster', 'auto', 2],
      ['localforward', '1 h:1', 4],
      ['localforward', '2 h:2', 5],
      ['tcpkeepalive', 'no', 6],
    ]);
  });

  it('notes deprecated options, criteria from later OpenSSH, and CanonicalizeHostname', async () => {
    const resolved = await resolve(
      'UseRoaming no\nCanonicalizeHostname yes\nMatch localnetwork 10.0.0.0/8\n  Port 2\nMatch !tagged x\n  Port 3\n',
    );
    expect(resolved.port).toBe(22);
    expect(resolved.notes.map((note) => [note.at?.line, note.message])).toEqual([
      [1, 'deprecated option "useroaming" is ignored'],
      [3, 'Match localnetwork is not in OpenSSH 9.2; the block is treated as not matching'],
      [5, 'Match tagged is not in OpenSSH 9.2; the block is treated as not matching'],
      [2, 'CanonicalizeHostname yes: Catalyst does not look host names up in DNS; HostName is used as is'],
    ]);
  });
});

describe('resolveSshConfig files and agent', () => {
  it('reads ~/.ssh/config then /etc/ssh/ssh_config, whose relative Includes are under /etc/ssh', async () => {
    const resolved = await resolveSshConfig(
      'web',
      sources({
        [CONFIG]: 'Host web\n  User from-user\n',
        '/etc/ssh/ssh_config': 'Include ssh_config.d/*.conf\nHost *\n  User from-system\n',
        '/etc/ssh/ssh_config.d/10.conf': 'Port 2200\n',
      }),
    );
    expect(resolved).toMatchObject({ user: 'from-user', port: 2200 });
  });

  it('takes an Include’s ~ from $HOME but every other ~ from the password database, as ssh does', async () => {
    const resolved = await resolveSshConfig(
      'web',
      sources(
        { [CONFIG]: 'Include ~/inc\nIdentityFile ~/.ssh/key\n', '/tmp/home/inc': 'Port 2\n' },
        { env: { HOME: '/tmp/home' } },
      ),
    );
    expect(resolved).toMatchObject({ port: 2, identityFiles: ['/home/ann/.ssh/key'] });
  });

  it('finds the agent socket: $SSH_AUTH_SOCK by default, a $VAR, a path, or none', async () => {
    const env = { HOME: '/home/ann', SSH_AUTH_SOCK: '/run/a.sock', OTHER: '/run/o.sock' };
    const agentOf = async (line: string) => (await resolve(line, 'web', { env })).identityAgent;
    expect(await agentOf('')).toEqual({ setting: undefined, socket: '/run/a.sock' });
    expect(await agentOf('IdentityAgent SSH_AUTH_SOCK')).toEqual({
      setting: 'SSH_AUTH_SOCK',
      socket: '/run/a.sock',
    });
    expect(await agentOf('IdentityAgent $OTHER')).toEqual({ setting: '$OTHER', socket: '/run/o.sock' });
    expect(await agentOf('IdentityAgent ~/agent-%h')).toEqual({
      setting: '/home/ann/agent-web',
      socket: '/home/ann/agent-web',
    });
    expect(await agentOf('IdentityAgent none')).toEqual({ setting: 'none', socket: undefined });
  });

  it('says whether the identity files are ssh’s defaults', async () => {
    expect(await resolve('')).toMatchObject({ isIdentityFileListDefault: true });
    expect((await resolve('')).identityFiles[0]).toBe('/home/ann/.ssh/id_rsa');
    expect(await resolve('IdentityFile none\n')).toMatchObject({
      identityFiles: [],
      isIdentityFileListDefault: false,
    });
  });
});
