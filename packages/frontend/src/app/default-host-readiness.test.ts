import type { HostCheckStep, HostCheckView, HostHealthView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { defaultHostOf, hostWords, readinessOf } from './default-host-readiness.ts';

// The first screen's verdict on the default host (issue 40, item 5): "reachable" is not "ready"; the last check's
// login step decides what the list cannot tell.

const LOCAL: HostHealthView = {
  name: 'local',
  label: 'local',
  isDefault: true,
  source: 'builtin',
  reachable: true,
  preflight: {
    claudePath: '/usr/bin/claude',
    version: '2.1.331',
    path: '/usr/bin',
    canRunWrapper: true,
    problems: [],
  },
};

function checkWith(login: HostCheckStep): HostCheckView {
  const ok = (id: HostCheckStep['id']): HostCheckStep => ({ id, status: 'ok', detail: '' });
  const steps = [ok('resolve'), ok('connect'), ok('host-key'), ok('auth'), ok('claude'), login];
  const isReady = steps.every((step) => step.status === 'ok' || step.status === 'warning');
  return { name: 'local', isReady, steps, ignored: [], checkedAt: '2026-01-01T00:00:00.000Z' };
}

describe('readinessOf', () => {
  it('is not ready when the last check found claude not logged in, though the host answers', () => {
    const check = checkWith({
      id: 'login',
      status: 'failed',
      detail: 'claude on this machine is not logged in',
      fix: 'To log in, run `claude` in a terminal on this machine.',
    });
    expect(readinessOf(LOCAL, check)).toEqual({
      kind: 'not-ready',
      host: LOCAL,
      reason: 'claude on this machine is not logged in',
      fix: 'To log in, run `claude` in a terminal on this machine.',
    });
  });

  it('needs a check when none ran, and is ready when the last one found it so', () => {
    expect(readinessOf(LOCAL, null).kind).toBe('unknown');
    const ready = readinessOf(LOCAL, checkWith({ id: 'login', status: 'ok', detail: 'logged in' }));
    expect(ready).toEqual({ kind: 'ready', host: LOCAL, claude: 'claude 2.1.331' });
  });

  it('takes the list’s word for a host that does not answer or has no claude', () => {
    const down = { ...LOCAL, reachable: false, error: 'connection refused' };
    expect(readinessOf(down, null)).toEqual({ kind: 'not-ready', host: down, reason: 'connection refused' });
    const bare = {
      ...LOCAL,
      preflight: { path: '/usr/bin', canRunWrapper: true, problems: ['claude was not found'] },
    };
    expect(readinessOf(bare, null)).toMatchObject({ kind: 'not-ready', reason: 'claude was not found' });
  });

  it('names the default host, the built-in one as this machine', () => {
    const vm = { ...LOCAL, name: 'vm', isDefault: false, source: 'app' as const };
    expect(defaultHostOf([vm, LOCAL])).toBe(LOCAL);
    expect(hostWords(LOCAL)).toBe('local (this machine)');
    expect(hostWords(vm)).toBe('vm');
  });
});
