import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSettings } from './settings.ts';

const base = { flags: {}, env: {}, homeDir: '/home/me', cwd: '/work' };

async function failureOf(settings: Promise<unknown>): Promise<unknown> {
  return settings.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  );
}

describe('resolveSettings', () => {
  it('defaults to the local Catalyst and the token file it writes', async () => {
    expect(await resolveSettings(base)).toEqual({
      url: 'http://127.0.0.1:7433',
      tokenFile: '/home/me/.config/catalyst/token',
    });
  });

  it('takes flags over the environment, and the environment over the defaults', async () => {
    const env = { CATALYST_URL: 'https://env.example', CATALYST_TOKEN_FILE: '~/env-token' };
    expect(await resolveSettings({ ...base, env })).toEqual({
      url: 'https://env.example',
      tokenFile: '/home/me/env-token',
    });
    const flags = { url: 'http://127.0.0.1:9000/', tokenFile: 'relative/token' };
    expect(await resolveSettings({ ...base, env, flags })).toEqual({
      url: 'http://127.0.0.1:9000',
      tokenFile: '/work/relative/token',
    });
  });

  it('finds the token where CATALYST_CONFIG_DIR puts it, as the server does', async () => {
    const settings = await resolveSettings({ ...base, env: { CATALYST_CONFIG_DIR: '/etc/cat' } });
    expect(settings.tokenFile).toBe('/etc/cat/token');
  });

  it.each(['not a url', 'ftp://host', 'http://host/catalyst', 'http://host?x=1'])(
    'refuses the URL %s as a usage error',
    async (url) => {
      await expect(resolveSettings({ ...base, flags: { url } })).rejects.toMatchObject({ code: 'USAGE' });
    },
  );

  it('reaches CATALYST_PORT on loopback, as the server listens by default (issue 40, item 4)', async () => {
    const settings = await resolveSettings({ ...base, env: { CATALYST_PORT: '7455' } });
    expect(settings.url).toBe('http://127.0.0.1:7455');
    const overridden = await resolveSettings({
      ...base,
      env: { CATALYST_PORT: '7455', CATALYST_URL: 'http://127.0.0.1:9000' },
    });
    expect(overridden.url).toBe('http://127.0.0.1:9000');
  });

  it.each(['http', '70000', '-1'])('refuses CATALYST_PORT=%s as a usage error', async (port) => {
    const error = await failureOf(resolveSettings({ ...base, env: { CATALYST_PORT: port } }));
    expect(error).toMatchObject({ code: 'USAGE' });
    expect(String(error)).toContain('CATALYST_PORT');
  });
});

describe('resolveSettings with the url file Catalyst writes beside its token', () => {
  let configDir: string;
  beforeEach(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'catalyst-cli-settings-'));
  });
  afterEach(async () => {
    await rm(configDir, { recursive: true, force: true });
  });

  const withConfigDir = (env: Record<string, string> = {}) => ({
    ...base,
    env: { CATALYST_CONFIG_DIR: configDir, ...env },
  });

  it('reaches the Catalyst that wrote the token file, wherever it listens', async () => {
    await writeFile(join(configDir, 'url'), '{"url":"http://127.0.0.1:7455"}\n', { mode: 0o600 });
    expect(await resolveSettings(withConfigDir())).toEqual({
      url: 'http://127.0.0.1:7455',
      tokenFile: join(configDir, 'token'),
    });
  });

  it('reads the url file beside a token file given by flag', async () => {
    await writeFile(join(configDir, 'url'), '{"url":"http://[::1]:8000"}\n');
    const settings = await resolveSettings({ ...base, flags: { tokenFile: join(configDir, 'token') } });
    expect(settings.url).toBe('http://[::1]:8000');
  });

  it('takes --url, CATALYST_URL and CATALYST_PORT over the file; CATALYST_PORT=0 (any port) falls to it', async () => {
    await writeFile(join(configDir, 'url'), '{"url":"http://127.0.0.1:7455"}\n');
    expect((await resolveSettings(withConfigDir({ CATALYST_PORT: '7460' }))).url).toBe(
      'http://127.0.0.1:7460',
    );
    expect((await resolveSettings(withConfigDir({ CATALYST_URL: 'http://h:1' }))).url).toBe('http://h:1');
    const flags = { url: 'http://f:2' };
    expect((await resolveSettings({ ...withConfigDir(), flags })).url).toBe('http://f:2');
    expect((await resolveSettings(withConfigDir({ CATALYST_PORT: '0' }))).url).toBe('http://127.0.0.1:7455');
  });

  it.each([
    ['not JSON', 'http://127.0.0.1:7455'],
    ['no url', '{"port":7455}'],
    ['a URL with a path', '{"url":"http://127.0.0.1:7455/x"}'],
    ['not http', '{"url":"ftp://127.0.0.1:7455"}'],
  ])('refuses a url file with %s, naming the file', async (_what, text) => {
    const path = join(configDir, 'url');
    await writeFile(path, text);
    const error = await failureOf(resolveSettings(withConfigDir()));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(String(error)).toContain(path);
  });

  it('refuses a url file it cannot read, naming it', async () => {
    const path = join(configDir, 'url');
    await mkdir(path);
    const error = await failureOf(resolveSettings(withConfigDir()));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(String(error)).toContain(path);
  });
});
