import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureCatalystError } from '../core/capture-error.ts';
import { AppHostsStore, appendKnownHost, entryOfAppHost, parseHostTarget } from './app-hosts-store.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-hosts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a host target', () => {
  it('is an alias, or user@host[:port] (brackets for IPv6), as ssh -l and -p would give them', () => {
    expect(parseHostTarget('devbox')).toEqual({ alias: 'devbox' });
    expect(parseHostTarget(' dev@vm.example:2222 ')).toEqual({
      alias: 'vm.example',
      user: 'dev',
      port: 2222,
    });
    expect(parseHostTarget('dev@[::1]:2200')).toEqual({ alias: '::1', user: 'dev', port: 2200 });
    expect(parseHostTarget('ssh://ops@10.0.0.5')).toEqual({ alias: '10.0.0.5', user: 'ops' });
  });

  it('refuses what is neither, saying so', () => {
    for (const bad of ['dev@vm:0', 'dev@vm:http', 'ssh://vm/path']) {
      const error = captureCatalystError(() => parseHostTarget(bad));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain('is neither an alias of ~/.ssh/config nor user@host[:port]');
    }
  });

  it('becomes a host entry resolved from the ssh config, with the app defaults and CATALYST_SSH_CONFIG_FILE', () => {
    const entry = entryOfAppHost(
      { name: 'vm', target: 'dev@vm.example:2222' },
      { ideasRoot: '~/catalyst/ideas', sshConfigFile: '/etc/catalyst/ssh_config' },
    );
    expect(entry).toEqual({
      name: 'vm',
      kind: 'ssh',
      addedAs: 'dev@vm.example:2222',
      connect: {
        via: 'ssh-config',
        alias: 'vm.example',
        user: 'dev',
        port: 2222,
        configFile: '/etc/catalyst/ssh_config',
      },
      ideasRoot: '~/catalyst/ideas',
    });
  });
});

describe('the added hosts file', () => {
  it('is empty before the first host, written 0600 and read back', async () => {
    const store = new AppHostsStore(join(dir, 'config', 'added-hosts.json'));
    expect(await store.read()).toEqual({ version: 1, hosts: [] });
    const file = {
      version: 1 as const,
      hosts: [{ name: 'devbox', target: 'devbox' }],
      defaultHost: 'devbox',
    };
    await store.save(file);
    expect(await store.read()).toEqual(file);
    expect((await stat(join(dir, 'config', 'added-hosts.json'))).mode & 0o777).toBe(0o600);
  });

  it('sets a damaged file aside with a warning naming where it is kept, and reads no host (issue 39)', async () => {
    const path = join(dir, 'added-hosts.json');
    const body = JSON.stringify({ hosts: [{ name: 'Bad Name', target: 'x' }] });
    await writeFile(path, body);
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    expect(await new AppHostsStore(path, logger).read()).toEqual({ version: 1, hosts: [] });
    const kept = (await readdir(dir)).filter((name) => name.startsWith('added-hosts.json.broken-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir, kept[0] ?? ''), 'utf8')).toBe(body);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(dir, kept[0] ?? ''));
  });

  it('appends confirmed keys to Catalyst’s own known_hosts, 0600', async () => {
    const path = join(dir, 'known_hosts');
    await appendKnownHost(path, '[127.0.0.1]:2222 ssh-ed25519 AAAA1');
    await appendKnownHost(path, 'vm ssh-ed25519 AAAA2');
    expect(await readFile(path, 'utf8')).toBe('[127.0.0.1]:2222 ssh-ed25519 AAAA1\nvm ssh-ed25519 AAAA2\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
