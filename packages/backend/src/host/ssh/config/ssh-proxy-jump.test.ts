import { describe, expect, it } from 'vitest';
import { createMemorySshConfigSources } from './ssh-config-memory-sources.ts';
import { resolveSshConfig } from './ssh-config-resolve.ts';
import { formatJumpSpec, parseJumpSpec } from './ssh-jump-spec.ts';
import { expandJumpChain, parseProxyJump } from './ssh-proxy-jump.ts';

describe('parseProxyJump', () => {
  it('reads user@host:port, ssh:// URIs, IPv6 in brackets and none', () => {
    expect(parseProxyJump('j1')).toEqual([{ user: undefined, host: 'j1', port: undefined }]);
    expect(parseProxyJump('ssh://u1@j1:2201,u2@j2:2202')).toEqual([
      { user: 'u1', host: 'j1', port: 2201 },
      { user: 'u2', host: 'j2', port: 2202 },
    ]);
    expect(parseProxyJump('ops@[2001:db8::1]:2222')).toEqual([
      { user: 'ops', host: '2001:db8::1', port: 2222 },
    ]);
    expect(parseProxyJump('a@b@host')).toEqual([{ user: 'a@b', host: 'host', port: undefined }]);
    expect(parseProxyJump('ssh://al%20ice;fp=x@Jump.Example:22/')).toEqual([
      { user: 'al ice', host: 'Jump.Example', port: 22 },
    ]);
    expect(parseProxyJump('NONE')).toEqual([]);
  });

  it('refuses a URI with a path, an empty hop, a bad port, a bare IPv6 and an IPv6 URI', () => {
    for (const value of [
      'ssh://h/path',
      'a,,b',
      'h:0',
      'h:99999',
      'h:x',
      '@h',
      'h/x',
      'fe80::1',
      'ssh://[::1]',
    ]) {
      expect(() => parseProxyJump(value), value).toThrow('Invalid ProxyJump');
    }
  });

  it('prints a hop as ssh -G does, bracketing addresses', () => {
    const format = (text: string) => {
      const spec = parseJumpSpec(text);
      return spec && formatJumpSpec(spec);
    };
    expect(format('ssh://u@h:2')).toBe('u@h:2');
    expect(format('127.0.0.1:22')).toBe('[127.0.0.1]:22');
    expect(format('[::1]')).toBe('[::1]');
  });
});

const CONFIG = '/home/ann/.ssh/config';

function resolverFor(text: string) {
  const sources = createMemorySshConfigSources({ files: { [CONFIG]: text } });
  return (alias: string, overrides = {}) => resolveSshConfig(alias, sources, { overrides });
}

describe('expandJumpChain', () => {
  it('resolves each hop as its own alias, user@ and :port winning, only the first hop’s own ProxyJump applying', async () => {
    const resolve = resolverFor(
      [
        'Host b',
        '  ProxyJump ssh://u1@j1:2201,u2@j2:2202',
        'Host j1',
        '  ProxyJump edge',
        '  IdentityFile ~/.ssh/j1_key',
        'Host j2',
        '  ProxyJump ignored',
        '  User j2-config-user',
        '  HostName j2.example',
        'Host edge',
        '  User edge-user',
        '  Port 2022',
      ].join('\n'),
    );
    const chain = await expandJumpChain(await resolve('b'), resolve);
    expect(chain.map((hop) => [hop.alias, hop.hostname, hop.user, hop.port, hop.proxyJump])).toEqual([
      ['edge', 'edge', 'edge-user', 2022, undefined],
      ['j1', 'j1', 'u1', 2201, 'edge'],
      ['j2', 'j2.example', 'u2', 2202, 'u1@j1:2201'],
    ]);
    expect(chain[1]?.identityFiles).toEqual(['/home/ann/.ssh/j1_key']);
  });

  it('keeps the first hop’s own ProxyCommand, and none for a host without a jump', async () => {
    const resolve = resolverFor('Host t\n  ProxyJump j\nHost j\n  ProxyCommand nc %h %p\n');
    const [first] = await expandJumpChain(await resolve('t'), resolve);
    expect(first?.proxyCommand).toBe('nc j 22');
    expect(await expandJumpChain(await resolve('j'), resolve)).toEqual([]);
  });

  it('stops a loop through the hops’ own ProxyJump', async () => {
    const resolve = resolverFor('Host a\n  ProxyJump b\nHost b\n  ProxyJump c\nHost c\n  ProxyJump b\n');
    await expect(expandJumpChain(await resolve('a'), resolve)).rejects.toThrow('jump host loop via b');
  });

  it('refuses shell characters in names it passes to a hop as -l or -J, as ssh does for its command line', async () => {
    const resolve = resolverFor('Host t\n  ProxyJump j1,x;y@j2\n');
    await expect(expandJumpChain(await resolve('t'), resolve)).rejects.toThrow(
      'remote username contains invalid characters: "x;y"',
    );
    await expect(resolve('j3', { proxyJump: 'x;y@j1' })).rejects.toThrow('invalid host or user name');
  });
});
