import { describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { describeConfig, loadConfig, type LoadConfigOptions } from './config.ts';

const HOME = '/home/alice';
const TOKEN = 'a-configured-token-that-is-long-enough-0123456789';
const HOST_KEY =
  'vm.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMGa4OtGleqrET8eznCgDjphZt625Bb8Uva8HFlMu8hH';

function withFile(json: unknown): LoadConfigOptions {
  return {
    homeDir: HOME,
    cwd: '/srv',
    readFile: (path) => {
      if (path !== '/etc/catalyst.json') throw new Error(`ENOENT: no such file, open '${path}'`);
      return typeof json === 'string' ? json : JSON.stringify(json);
    },
  };
}

function configError(run: () => unknown): CatalystError {
  try {
    run();
  } catch (error) {
    if (error instanceof CatalystError) return error;
    throw error;
  }
  throw new Error('expected a CatalystError, the configuration was accepted');
}

describe('loadConfig', () => {
  it('has safe defaults: loopback, no token yet, one local host', () => {
    const config = loadConfig({ PATH: '/usr/bin', HOME: '/elsewhere' }, { homeDir: HOME });
    expect(config).toEqual({
      bind: '127.0.0.1',
      port: 7433,
      configDir: '/home/alice/.config/catalyst',
      allowedOrigins: [],
      hosts: [{ name: 'local', kind: 'local', isBuiltIn: true, ideasRoot: '~/catalyst/ideas' }],
      defaultHost: 'local',
      ideasRoot: '~/catalyst/ideas',
      claudeTimeoutMs: 600_000,
      maxRunMs: 6 * 60 * 60_000,
      detachedLimitMs: 30 * 60_000,
      leaseMs: 30_000,
      warmIdleMs: 10 * 60_000,
      checkpointTimeoutMs: 60_000,
      previewIdleMs: 3_600_000,
      sessionDays: 30,
      warmPerHost: 4,
      qa: { model: 'claude-haiku-4-5', timeoutMs: 60_000 },
      logLevel: 'info',
    });
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig(
      {
        CATALYST_BIND: '0.0.0.0',
        CATALYST_PORT: '0',
        CATALYST_TOKEN: TOKEN,
        CATALYST_CONFIG_DIR: '~/cat',
        CATALYST_IDEAS_ROOT: '/data/ideas',
        CATALYST_CLAUDE_PATH: '/opt/claude',
        CLAUDE_TIMEOUT_MS: '5000',
        CATALYST_MAX_RUN_MS: '60000',
        CATALYST_DETACHED_LIMIT_MS: '120000',
        CATALYST_LEASE_MS: '3000',
        CATALYST_WARM_IDLE_MS: '5000',
        CATALYST_WARM_PER_HOST: '0',
        CATALYST_LOG_LEVEL: 'debug',
        CATALYST_ALLOWED_ORIGINS: 'http://localhost:5173, https://Cat.Example',
        CATALYST_QA_MODEL: 'claude-sonnet-4-5',
        CATALYST_QA_TIMEOUT_MS: '30000',
        CATALYST_CHECKPOINT_TIMEOUT_MS: '9000',
        CATALYST_PREVIEW_IDLE_MS: '5000',
        CATALYST_SESSION_DAYS: '7',
      },
      { homeDir: HOME },
    );
    expect(config).toMatchObject({
      bind: '0.0.0.0',
      port: 0,
      token: TOKEN,
      configDir: '/home/alice/cat',
      allowedOrigins: ['http://localhost:5173', 'https://cat.example'],
      hosts: [{ name: 'local', kind: 'local', ideasRoot: '/data/ideas', claudePath: '/opt/claude' }],
      claudeTimeoutMs: 5000,
      maxRunMs: 60_000,
      detachedLimitMs: 120_000,
      leaseMs: 3_000,
      warmIdleMs: 5_000,
      warmPerHost: 0,
      qa: { model: 'claude-sonnet-4-5', timeoutMs: 30_000 },
      checkpointTimeoutMs: 9_000,
      previewIdleMs: 5_000,
      sessionDays: 7,
      logLevel: 'debug',
    });
  });

  it('reports every problem at once, without quoting the token', () => {
    const error = configError(() =>
      loadConfig(
        {
          CATALYST_PORT: 'http',
          CATALYST_TOKEN: 'short secret',
          CATALYST_LOG_LEVEL: 'loud',
          CLAUDE_TIMEOUT_MS: '-5',
          CATALYST_MAX_RUN_MS: '',
          CATALYST_IDEAS_ROOT: '~/ideas/../../etc',
          CATALYST_CLAUDE_PATH: 'claude',
          CATALYST_ALLOWED_ORIGINS: 'https://ok.example,https://bad.example/path',
        },
        { homeDir: HOME },
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    const problems = error.details.problems;
    expect(Array.isArray(problems) ? problems.length : 0).toBeGreaterThanOrEqual(8);
    for (const name of [
      'CATALYST_PORT: must be a whole number',
      'CATALYST_TOKEN: must be at least 32 characters',
      'CATALYST_LOG_LEVEL',
      'CLAUDE_TIMEOUT_MS',
      'CATALYST_MAX_RUN_MS: is set but empty',
      'CATALYST_IDEAS_ROOT: must not contain .. segments',
      'CATALYST_CLAUDE_PATH: must be an absolute path',
      'https://bad.example/path',
    ]) {
      expect(error.message).toContain(name);
    }
    expect(error.message).not.toContain('short secret');
  });

  it('reads CATALYST_PUBLIC_URL as an http(s) origin, and reports a path or another scheme with the rest', () => {
    const publicUrlOf = (value: string) =>
      loadConfig({ CATALYST_PUBLIC_URL: value }, { homeDir: HOME }).publicUrl;
    expect(publicUrlOf('https://Catalyst.Example.com')).toBe('https://catalyst.example.com');
    expect(publicUrlOf('https://catalyst.example.com/')).toBe('https://catalyst.example.com');
    expect(publicUrlOf('https://catalyst.example.com:443')).toBe('https://catalyst.example.com');
    expect(publicUrlOf('http://vm.lan:8080')).toBe('http://vm.lan:8080');
    expect(loadConfig({}, { homeDir: HOME }).publicUrl).toBeUndefined();
    for (const value of [
      'https://catalyst.example.com/app',
      'ftp://catalyst.example.com',
      'https://user:pass@catalyst.example.com',
      'https://catalyst.example.com/?x',
      'catalyst.example.com',
    ]) {
      const error = configError(() =>
        loadConfig({ CATALYST_PUBLIC_URL: value, CATALYST_PORT: 'x' }, { homeDir: HOME }),
      );
      expect(error.details.problems).toEqual([
        'CATALYST_PORT: must be a whole number',
        expect.stringContaining('CATALYST_PUBLIC_URL: "'),
      ]);
    }
  });

  it('reads CATALYST_SESSION_DAYS as whole days from 1 to 3650, and reports anything else', () => {
    expect(loadConfig({ CATALYST_SESSION_DAYS: '1' }, { homeDir: HOME }).sessionDays).toBe(1);
    expect(loadConfig({ CATALYST_SESSION_DAYS: '3650' }, { homeDir: HOME }).sessionDays).toBe(3650);
    for (const days of ['', '0', '3651', '1.5', '-1', 'forever']) {
      const error = configError(() => loadConfig({ CATALYST_SESSION_DAYS: days }, { homeDir: HOME }));
      expect(error.details.problems, days).toEqual([expect.stringMatching(/^CATALYST_SESSION_DAYS: /)]);
    }
  });

  it('never falls back to a default for a value that is present but wrong', () => {
    for (const port of ['', '70000', '7433.5', ' 7433']) {
      expect(configError(() => loadConfig({ CATALYST_PORT: port }, { homeDir: HOME })).message).toContain(
        'CATALYST_PORT',
      );
    }
  });

  it('refuses to bind beyond loopback without an explicit token', () => {
    for (const bind of ['0.0.0.0', '192.168.1.10', '::', 'catalyst.lan']) {
      const error = configError(() => loadConfig({ CATALYST_BIND: bind }, { homeDir: HOME }));
      expect(error.message).toContain('CATALYST_TOKEN must be set explicitly');
    }
    for (const bind of ['127.0.0.1', '::1', 'localhost']) {
      expect(loadConfig({ CATALYST_BIND: bind }, { homeDir: HOME }).bind).toBe(bind);
    }
    expect(loadConfig({ CATALYST_BIND: '0.0.0.0', CATALYST_TOKEN: TOKEN }, { homeDir: HOME }).bind).toBe(
      '0.0.0.0',
    );
  });

  it('reads SSH hosts from the config file, with per-host overrides and the default host', () => {
    const file = {
      defaultHost: 'vm',
      hosts: [
        { name: 'local', kind: 'local' },
        {
          name: 'vm',
          kind: 'ssh',
          address: 'vm.example',
          user: 'dev',
          privateKeyPath: '~/.ssh/vm_ed25519',
          hostKey: HOST_KEY,
          claudePath: '/home/dev/.local/bin/claude',
        },
      ],
    };
    const config = loadConfig(
      { CATALYST_CONFIG_FILE: '/etc/catalyst.json', CATALYST_CLAUDE_PATH: '/usr/bin/claude' },
      withFile(file),
    );
    expect(config.defaultHost).toBe('vm');
    expect(config.hosts).toEqual([
      { name: 'local', kind: 'local', ideasRoot: '~/catalyst/ideas', claudePath: '/usr/bin/claude' },
      {
        name: 'vm',
        kind: 'ssh',
        connect: {
          via: 'fields',
          address: 'vm.example',
          port: 22,
          user: 'dev',
          privateKeyPath: '/home/alice/.ssh/vm_ed25519',
          hostKey: HOST_KEY,
        },
        ideasRoot: '~/catalyst/ideas',
        claudePath: '/home/dev/.local/bin/claude',
      },
    ]);
  });

  it('reads an SSH host named by its ~/.ssh/config alias, user and port winning like ssh -l and -p', () => {
    const file = {
      hosts: [
        { name: 'devbox', kind: 'ssh', sshAlias: 'devbox' },
        {
          name: 'other',
          kind: 'ssh',
          sshAlias: 'db.internal',
          sshConfigFile: '~/ssh.conf',
          user: 'ops',
          port: 2200,
        },
      ],
    };
    const config = loadConfig({ CATALYST_CONFIG_FILE: '/etc/catalyst.json' }, withFile(file));
    expect(config.hosts.map((host) => host.kind === 'ssh' && host.connect)).toEqual([
      { via: 'ssh-config', alias: 'devbox' },
      {
        via: 'ssh-config',
        alias: 'db.internal',
        configFile: '/home/alice/ssh.conf',
        user: 'ops',
        port: 2200,
      },
    ]);
  });

  it('refuses an SSH host with neither an alias nor its fields, or with both, saying which field', () => {
    const error = configError(() =>
      loadConfig(
        { CATALYST_CONFIG_FILE: '/etc/catalyst.json' },
        withFile({
          hosts: [
            { name: 'a', kind: 'ssh', address: 'vm' },
            { name: 'b', kind: 'ssh', sshAlias: 'b', address: 'vm', privateKeyPath: '/k' },
            { name: 'c', kind: 'ssh', sshAlias: 'c;rm -rf /' },
          ],
        }),
      ),
    );
    for (const part of [
      'hosts[0].user: is required without sshAlias',
      'hosts[0].hostKey: is required without sshAlias',
      'hosts[1].address: comes from ~/.ssh/config when sshAlias is set',
      'hosts[1].privateKeyPath: comes from ~/.ssh/config when sshAlias is set',
      'hosts[2].sshAlias: must be a Host alias of ~/.ssh/config',
    ]) {
      expect(error.message).toContain(part);
    }
  });

  it('reports the file’s problems together with the environment’s', () => {
    const file = {
      defaultHost: 'nowhere',
      hosts: [
        { name: 'VM 1', kind: 'ssh', address: 'vm', user: 'dev', privateKeyPath: 'key', hostKey: 'junk' },
      ],
      extra: true,
    };
    const error = configError(() =>
      loadConfig({ CATALYST_CONFIG_FILE: '/etc/catalyst.json', CATALYST_PORT: 'x' }, withFile(file)),
    );
    for (const part of [
      'CATALYST_PORT',
      '/etc/catalyst.json hosts[0].name',
      '/etc/catalyst.json hosts[0].privateKeyPath',
      '/etc/catalyst.json hosts[0].hostKey',
      'extra',
    ]) {
      expect(error.message).toContain(part);
    }
  });

  it('checks that host names are unique and the default host exists', () => {
    const local = { name: 'a', kind: 'local' };
    const duplicate = configError(() =>
      loadConfig({ CATALYST_CONFIG_FILE: '/etc/catalyst.json' }, withFile({ hosts: [local, local] })),
    );
    expect(duplicate.message).toContain('host names must be unique');
    const missing = configError(() =>
      loadConfig(
        { CATALYST_CONFIG_FILE: '/etc/catalyst.json' },
        withFile({ hosts: [local], defaultHost: 'b' }),
      ),
    );
    expect(missing.message).toContain('defaultHost: must name one of the hosts');
  });

  it('reports a config file that cannot be read or is not JSON', () => {
    const unreadable = configError(() =>
      loadConfig({ CATALYST_CONFIG_FILE: '/nope.json', CATALYST_PORT: 'x' }, withFile({})),
    );
    expect(unreadable.message).toContain('cannot read /nope.json');
    expect(unreadable.message).toContain('CATALYST_PORT');
    const notJson = configError(() =>
      loadConfig({ CATALYST_CONFIG_FILE: '/etc/catalyst.json' }, withFile('{ hosts: [')),
    );
    expect(notJson.message).toContain('/etc/catalyst.json is not valid JSON');
  });

  it('describes itself for the log without the token', () => {
    const config = loadConfig({ CATALYST_TOKEN: TOKEN }, { homeDir: HOME });
    const described = JSON.stringify(describeConfig(config));
    expect(described).not.toContain(TOKEN);
    expect(described).toContain('set by CATALYST_TOKEN');
    expect(described).toContain('local (local)');
  });
});
