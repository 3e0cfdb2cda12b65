import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { captureCatalystError } from '../../../core/capture-error.ts';
import { completeTokenValues, expandOptionValue, expandTilde, type ExpansionContext } from './ssh-tokens.ts';

const TOKENS = completeTokenValues({
  d: '/home/ann',
  h: 'vm.example.com',
  i: '1000',
  k: 'vm-alias',
  l: 'laptop.lan',
  n: 'vm',
  p: '2200',
  r: 'deploy',
  u: 'ann',
});
const CONTEXT: ExpansionContext = {
  tokens: TOKENS,
  env: { HOME: '/tmp/h', AGENT: '/run/agent.sock' },
  localUser: { name: 'ann', home: '/home/ann' },
  at: { file: '/home/ann/.ssh/config', line: 3 },
};

describe('expandOptionValue', () => {
  it('expands every default token in path options, with ~ from the password database and ${VAR}', () => {
    expect(expandOptionValue('identityfile', '~/.ssh/id_%h_%r_%p', CONTEXT)).toBe(
      '/home/ann/.ssh/id_vm.example.com_deploy_2200',
    );
    expect(expandOptionValue('userknownhostsfile', '%d/kh/%k %% %u %i %n %L %l', CONTEXT)).toBe(
      '/home/ann/kh/vm-alias % ann 1000 vm laptop laptop.lan',
    );
    expect(expandOptionValue('identityagent', '${AGENT}', CONTEXT)).toBe('/run/agent.sock');
    expect(expandOptionValue('identityfile', '${HOME}/.ssh/extra', CONTEXT)).toBe('/tmp/h/.ssh/extra');
  });

  it('computes %C as the SHA-1 of %l%h%p%r', () => {
    const expected = createHash('sha1').update('laptop.lanvm.example.com2200deploy').digest('hex');
    expect(expandOptionValue('certificatefile', '%C', CONTEXT)).toBe(expected);
  });

  it('gives HostName only %h and ProxyCommand only %h %k %n %p %r, leaving $ and ~ to the shell', () => {
    expect(expandOptionValue('hostname', '%h.internal', CONTEXT)).toBe('vm.example.com.internal');
    expect(captureCatalystError(() => expandOptionValue('hostname', '%r.internal', CONTEXT)).code).toBe(
      'SSH_CONFIG_INVALID',
    );
    expect(expandOptionValue('proxycommand', 'nc %h %p # %k %n %r ${X} ~', CONTEXT)).toBe(
      'nc vm.example.com 2200 # vm-alias vm deploy ${X} ~',
    );
    expect(() => expandOptionValue('proxycommand', 'nc %d', CONTEXT)).toThrow('unknown token %d');
  });

  it('refuses an unknown token, a lone %, an unset or unclosed ${VAR}, naming the line', () => {
    const unknown = captureCatalystError(() => expandOptionValue('identityfile', '~/.ssh/id_%x', CONTEXT));
    expect(unknown.code).toBe('SSH_CONFIG_INVALID');
    expect(unknown.message).toBe('/home/ann/.ssh/config line 3: unknown token %x in "/home/ann/.ssh/id_%x"');
    expect(() => expandOptionValue('identityfile', 'id_%', CONTEXT)).toThrow('lone %');
    expect(() => expandOptionValue('identityfile', '${NOPE}', CONTEXT)).toThrow('${NOPE} has no value');
    expect(() => expandOptionValue('identityfile', '${HOME', CONTEXT)).toThrow('closing');
    expect(() => expandOptionValue('identityfile', '${}', CONTEXT)).toThrow('zero-length');
  });

  it('expands only ~ in GlobalKnownHostsFile', () => {
    expect(expandOptionValue('globalknownhostsfile', '~/g', CONTEXT)).toBe('/home/ann/g');
    expect(() => expandOptionValue('globalknownhostsfile', '/etc/%h', CONTEXT)).toThrow('unknown token %h');
  });
});

describe('expandTilde', () => {
  const user = { localUser: { name: 'ann', home: '/home/ann' }, at: CONTEXT.at };

  it('reads ~, ~/, ~//x and ~ann/x as tilde_expand does, and leaves other paths', () => {
    expect(expandTilde('~', user)).toBe('/home/ann/');
    expect(expandTilde('~/', user)).toBe('/home/ann/');
    expect(expandTilde('~//x', user)).toBe('/home/ann/x');
    expect(expandTilde('~ann/x', user)).toBe('/home/ann/x');
    expect(expandTilde('/a/~', user)).toBe('/a/~');
  });

  it('refuses another user’s home as unsupported', () => {
    expect(captureCatalystError(() => expandTilde('~bob/x', user)).code).toBe('SSH_CONFIG_UNSUPPORTED');
  });
});
