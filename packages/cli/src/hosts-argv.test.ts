import { describe, expect, it } from 'vitest';
import { parseInvocation } from './argv.ts';

const actionOf = (...argv: string[]) => {
  const { command } = parseInvocation(argv);
  if (command.kind !== 'hosts') throw new Error(`not hosts: ${command.kind}`);
  return command.action;
};

describe('catalyst hosts …', () => {
  it('lists with no action or list, as JSON with --json', () => {
    expect(actionOf('hosts')).toEqual({ type: 'list', json: false });
    expect(actionOf('hosts', 'list', '--json')).toEqual({ type: 'list', json: true });
  });

  it('adds by alias or user@host[:port], named after it unless --name is given', () => {
    expect(actionOf('hosts', 'add', 'ops@Build.Example.com:2222')).toEqual({
      type: 'add',
      target: 'ops@Build.Example.com:2222',
      name: 'build',
      isDefault: false,
    });
    expect(
      actionOf(
        'hosts',
        'add',
        'devbox',
        '--name',
        'box',
        '--ideas-root',
        '~/ideas',
        '--claude-path',
        '/usr/bin/claude',
        '--default',
      ),
    ).toEqual({
      type: 'add',
      target: 'devbox',
      name: 'box',
      ideasRoot: '~/ideas',
      claudePath: '/usr/bin/claude',
      isDefault: true,
    });
  });

  it('checks, trusts a fingerprint, removes (with --yes or -y), lists the aliases', () => {
    expect(actionOf('hosts', 'check', 'devbox')).toEqual({ type: 'check', name: 'devbox' });
    expect(actionOf('hosts', 'trust', 'devbox', 'SHA256:abc')).toEqual({
      type: 'trust',
      name: 'devbox',
      fingerprint: 'SHA256:abc',
    });
    expect(actionOf('hosts', 'remove', 'devbox')).toEqual({
      type: 'remove',
      name: 'devbox',
      isConfirmed: false,
    });
    expect(actionOf('hosts', 'remove', '-y', 'devbox')).toMatchObject({ isConfirmed: true });
    expect(actionOf('hosts', 'aliases')).toEqual({ type: 'aliases' });
  });

  it('gives the hosts usage for help hosts and hosts --help', () => {
    expect(parseInvocation(['help', 'hosts']).command).toEqual({ kind: 'help', topic: 'hosts' });
    expect(parseInvocation(['hosts', 'add', '--help']).command).toEqual({ kind: 'help', topic: 'hosts' });
  });

  it.each([
    [['hosts', 'extra']],
    [['hosts', 'list', 'extra']],
    [['hosts', 'check']],
    [['hosts', 'check', 'a', 'b']],
    [['hosts', 'check', 'devbox', '--yes']],
    [['hosts', 'trust', 'devbox']],
    [['hosts', 'add']],
    [['hosts', 'add', ' ']],
    [['hosts', 'add', 'ops@[::]']],
    [['hosts', 'add', 'devbox', '--json']],
    [['hosts', 'remove', 'devbox', '--default']],
    [['hosts', '--name', 'x']],
    [['ideas', '--yes']],
  ])('refuses %j as a usage error', (argv) => {
    expect(() => parseInvocation(argv)).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('says which action takes what', () => {
    expect(() => parseInvocation(['hosts', 'trust', 'devbox'])).toThrow(
      'hosts trust takes <name> <fingerprint>',
    );
    expect(() => parseInvocation(['hosts', 'check', 'devbox', '--yes'])).toThrow(
      'hosts check takes no --yes',
    );
    expect(() => parseInvocation(['hosts', 'deploy'])).toThrow("unknown hosts action 'deploy'");
  });
});
