import type { HostHealthView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { formatHostTable } from './host-table.ts';

const preflight = { path: '/usr/bin:/bin', canRunWrapper: true, problems: [] };
const local: HostHealthView = {
  name: 'local',
  label: 'This machine',
  isDefault: false,
  source: 'file',
  reachable: true,
  preflight: { ...preflight, claudePath: '/usr/bin/claude', version: '2.1.3 (Claude Code)' },
};
const devbox: HostHealthView = {
  name: 'devbox',
  label: 'devbox',
  isDefault: true,
  source: 'app',
  target: 'devbox',
  reachable: true,
  preflight: { ...preflight, claudePath: '/home/me/.local/bin/claude', problems: ['no flock'] },
};
const away: HostHealthView = {
  name: 'gpu',
  label: 'gpu',
  isDefault: false,
  source: 'app',
  target: 'ops@gpu.lab:2222',
  reachable: false,
  error: 'Cannot connect to gpu.lab:2222:\nconnection refused',
};

describe('formatHostTable', () => {
  it('says a reachable host was not ready at its last check, and why', () => {
    const loggedOut: HostHealthView = {
      ...local,
      lastCheck: {
        isReady: false,
        checkedAt: '2026-11-28T10:00:00.000Z',
        failed: ['login: claude is not logged in'],
      },
    };
    expect(formatHostTable([loggedOut])).toContain(
      'reachable, but not ready at the last check: login: claude is not logged in (catalyst hosts check local)',
    );
    const ready = {
      ...local,
      lastCheck: { isReady: true, checkedAt: '2026-11-28T10:00:00.000Z', failed: [] },
    };
    expect(formatHostTable([ready]).split('\n')[1]).toMatch(/ reachable$/);
  });

  it('aligns name, default, source, claude and status; an unreachable host says why, on one line', () => {
    expect(formatHostTable([local, devbox, away])).toBe(
      [
        'NAME    DEFAULT  SOURCE                  CLAUDE                                  STATUS',
        'local            file                    2.1.3 (Claude Code) at /usr/bin/claude  reachable',
        'devbox  *        app (devbox)            /home/me/.local/bin/claude              reachable, but no flock',
        'gpu              app (ops@gpu.lab:2222)  -                                       unreachable: Cannot connect to gpu.lab:2222: connection refused',
        '',
      ].join('\n'),
    );
  });

  it('says when claude was not found, and how to add a host when there is none', () => {
    const without = { ...local, preflight };
    expect(formatHostTable([without])).toMatch(/local\s+file\s+not found\s+reachable/);
    expect(formatHostTable([])).toContain('catalyst hosts add');
  });
});
