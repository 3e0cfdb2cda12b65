import { describe, expect, it } from 'vitest';
import { resolveSettings } from './settings.ts';

const base = { flags: {}, env: {}, homeDir: '/home/me', cwd: '/work' };

describe('resolveSettings', () => {
  it('defaults to the local Catalyst and the token file it writes', () => {
    expect(resolveSettings(base)).toEqual({
      url: 'http://127.0.0.1:7433',
      tokenFile: '/home/me/.config/catalyst/token',
    });
  });

  it('takes flags over the environment, and the environment over the defaults', () => {
    const env = { CATALYST_URL: 'https://env.example', CATALYST_TOKEN_FILE: '~/env-token' };
    expect(resolveSettings({ ...base, env })).toEqual({
      url: 'https://env.example',
      tokenFile: '/home/me/env-token',
    });
    const flags = { url: 'http://127.0.0.1:9000/', tokenFile: 'relative/token' };
    expect(resolveSettings({ ...base, env, flags })).toEqual({
      url: 'http://127.0.0.1:9000',
      tokenFile: '/work/relative/token',
    });
  });

  it('finds the token where CATALYST_CONFIG_DIR puts it, as the server does', () => {
    expect(resolveSettings({ ...base, env: { CATALYST_CONFIG_DIR: '/etc/cat' } }).tokenFile).toBe(
      '/etc/cat/token',
    );
  });

  it.each(['not a url', 'ftp://host', 'http://host/catalyst', 'http://host?x=1'])(
    'refuses the URL %s as a usage error',
    (url) => {
      expect(() => resolveSettings({ ...base, flags: { url } })).toThrow(
        expect.objectContaining({ code: 'USAGE' }),
      );
    },
  );
});
