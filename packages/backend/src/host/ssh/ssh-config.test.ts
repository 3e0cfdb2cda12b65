import { describe, expect, it } from 'vitest';
import { captureCatalystError } from '../../core/capture-error.ts';
import { parseSshHostConfig } from './ssh-config.ts';

const GOOD = 'AAAAC3NzaC1lZDI1NTE5AAAAIMGa4OtGleqrET8eznCgDjphZt625Bb8Uva8HFlMu8hH';

describe('parseSshHostConfig', () => {
  const base = { address: 'vm.example', user: 'dev', privateKeyPath: '/keys/id' };

  it('fills in the pool and timing defaults', async () => {
    const settings = parseSshHostConfig({ ...base, hostKey: `vm.example ssh-ed25519 ${GOOD}` });
    expect(settings.label).toBe('dev@vm.example:22');
    const { target, jumps } = await settings.route();
    expect(jumps).toEqual([]);
    expect(target).toMatchObject({ hostName: 'vm.example', port: 22, user: 'dev' });
    expect(target.identities).toEqual({ files: ['/keys/id'], areDefaultFiles: false, identitiesOnly: true });
    expect(settings.pool).toMatchObject({
      maxRunsPerConnection: 8,
      maxConnections: 4,
      maxHandshakes: 3,
      idleMs: 300_000,
    });
    expect(settings.timing).toMatchObject({
      readyTimeoutMs: 20_000,
      keepaliveIntervalMs: 15_000,
      keepaliveCountMax: 3,
    });
  });

  it('refuses a host without a host key and says how to get one', () => {
    const error = captureCatalystError(() => parseSshHostConfig({ ...base, port: 2222 }));
    expect(error.code).toBe('SSH_HOST_KEY_MISSING');
    expect(error.message).toContain('ssh-keyscan -p 2222 -t ed25519 vm.example');
  });

  it('reports every problem at once', () => {
    const error = captureCatalystError(() =>
      parseSshHostConfig({
        address: '',
        user: 'dev',
        port: 0,
        privateKeyPath: '/k',
        agentSocket: '/a',
        extra: 1,
      }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    for (const field of ['address', 'port', 'extra']) expect(error.message).toContain(field);
  });

  it('refuses both and neither of key file and agent', () => {
    const hostKey = `h ssh-ed25519 ${GOOD}`;
    const both = captureCatalystError(() => parseSshHostConfig({ ...base, agentSocket: '/a', hostKey }));
    expect(both.message).toContain('exactly one of privateKeyPath and agentSocket');
    const neither = captureCatalystError(() => parseSshHostConfig({ address: 'h', user: 'u', hostKey }));
    expect(neither.message).toContain('exactly one of privateKeyPath and agentSocket');
  });
});
