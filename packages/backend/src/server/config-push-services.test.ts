import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

// CATALYST_PUSH_SERVICES (issue 39, finding 1): push services' hosts Catalyst posts to besides the known ones.

const base = { CATALYST_CONFIG_DIR: '/tmp/catalyst-config-test' };

describe('CATALYST_PUSH_SERVICES', () => {
  it('is absent by default: the known push services only', () => {
    expect(loadConfig(base, { homeDir: '/home/me' }).pushServices).toBeUndefined();
  });

  it('takes a comma list of host names and *.suffix', () => {
    const env = { ...base, CATALYST_PUSH_SERVICES: 'push.example.com, *.Push.Example.net' };
    expect(loadConfig(env, { homeDir: '/home/me' }).pushServices).toEqual([
      'push.example.com',
      '*.push.example.net',
    ]);
  });

  it('refuses an address or a URL, naming the variable', () => {
    const env = { ...base, CATALYST_PUSH_SERVICES: 'push.example.com,10.0.0.5' };
    expect(() => loadConfig(env, { homeDir: '/home/me' })).toThrow(
      /CATALYST_PUSH_SERVICES.*is not a host name/,
    );
  });
});
