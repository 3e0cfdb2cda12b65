import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { resolveToken } from '../server/config.ts';

describe('resolveToken', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-token-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates a random token in <configDir>/token (dir 0700, file 0600), then reuses it', async () => {
    const configDir = join(root, 'nested', 'catalyst');
    const first = await resolveToken({ configDir });
    expect(first).toMatchObject({ generated: true, source: 'file' });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, 'token'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(configDir, 'token'), 'utf8')).trim()).toBe(first.token);

    const second = await resolveToken({ configDir });
    expect(second).toEqual({ token: first.token, generated: false, source: 'file' });
    const elsewhere = await resolveToken({ configDir: join(root, 'other') });
    expect(elsewhere.token).not.toBe(first.token);
  });

  it('uses a configured token and leaves the disk alone', async () => {
    const configDir = join(root, 'untouched');
    const token = 'configured-token-0123456789-0123456789';
    expect(await resolveToken({ token, configDir })).toEqual({
      token,
      generated: false,
      source: 'environment',
    });
    await expect(stat(configDir)).rejects.toThrow('ENOENT');
  });

  it('refuses a token file other users can read, and one without a usable token', async () => {
    const path = join(root, 'token');
    await writeFile(path, 'a-token-that-is-long-enough-to-be-accepted-0123\n', { mode: 0o644 });
    await chmod(path, 0o644);
    const open = await resolveToken({ configDir: root }).catch((error: unknown) => error);
    expect(open).toBeInstanceOf(CatalystError);
    expect(String(open)).toContain('chmod 600');

    await chmod(path, 0o600);
    await writeFile(path, 'short\n');
    const short = await resolveToken({ configDir: root }).catch((error: unknown) => error);
    expect(String(short)).toContain('does not hold a usable token');
  });

  it('sets an empty token file (a crash right after it was made) aside and makes a new token (issue 39)', async () => {
    const path = join(root, 'token');
    await writeFile(path, '', { mode: 0o600 });
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const resolved = await resolveToken({ configDir: root }, logger);
    expect(resolved.generated).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(`${resolved.token}\n`);
    const kept = (await readdir(root)).filter((name) => name.startsWith('token.broken-'));
    expect(kept).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(root, kept[0] ?? ''));
    expect(await resolveToken({ configDir: root })).toEqual({
      token: resolved.token,
      generated: false,
      source: 'file',
    });
  });
});
