import { describe, expect, it } from 'vitest';
import { createMemorySshConfigSources } from './config/ssh-config-memory-sources.ts';
import { resolveAliasRoute } from './ssh-config-route.ts';

// What of the ssh config Catalyst does not honour is said in words (issue 28), but not the system's defaults that
// change nothing for it (issue 40, item 6): Debian's /etc/ssh/ssh_config sets SendEnv, HashKnownHosts and
// GSSAPIAuthentication for every host, and "not used" under each check told a person nothing.

const DEBIAN_SYSTEM_CONFIG = [
  'Include /etc/ssh/ssh_config.d/*.conf',
  'Host *',
  '    SendEnv LANG LC_*',
  '    HashKnownHosts yes',
  '    GSSAPIAuthentication yes',
  '',
].join('\n');

async function ignoredFor(files: Record<string, string>): Promise<readonly string[]> {
  const route = await resolveAliasRoute({
    alias: 'vm',
    sources: createMemorySshConfigSources({ env: { HOME: '/home/ann' }, files }),
    catalystKnownHosts: '/nonexistent/catalyst_known_hosts',
    defaults: { readyTimeoutMs: 20_000, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3 },
  });
  return route.ignored;
}

describe('what a route says it does not use', () => {
  it('says nothing of the system defaults that change nothing, and still names what a person set', async () => {
    const ignored = await ignoredFor({
      '/home/ann/.ssh/config':
        'Host vm\n  HostName 10.0.0.5\n  ControlMaster auto\n  SendEnv FOO\n  ServerAliveInterval 30\n',
      '/etc/ssh/ssh_config': DEBIAN_SYSTEM_CONFIG,
    });
    expect(ignored).toEqual([
      'ControlMaster (line 3), SendEnv (line 4) in /home/ann/.ssh/config: not used, Catalyst keeps its own connections and does not act on them',
    ]);
  });

  it('still names a system option that would matter', async () => {
    const ignored = await ignoredFor({
      '/home/ann/.ssh/config': 'Host vm\n  HostName 10.0.0.5\n  ServerAliveInterval 30\n',
      '/etc/ssh/ssh_config': `${DEBIAN_SYSTEM_CONFIG}Host *\n    ControlMaster auto\n`,
    });
    expect(ignored).toEqual([
      'ControlMaster (line 7) in /etc/ssh/ssh_config: not used, Catalyst keeps its own connections and does not act on it',
    ]);
  });

  it('says ServerAliveInterval is off only where a config turns it off, not where it is unset', async () => {
    const unset = await ignoredFor({ '/home/ann/.ssh/config': 'Host vm\n  HostName 10.0.0.5\n' });
    expect(unset).toEqual([]);
    const off = await ignoredFor({
      '/home/ann/.ssh/config': 'Host vm\n  HostName 10.0.0.5\n  ServerAliveInterval 0\n',
    });
    expect(off).toEqual([
      'ServerAliveInterval (vm) is off: Catalyst sends its own keepalive every 15 s to notice a VM that went away',
    ]);
  });
});
