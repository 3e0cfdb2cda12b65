import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadVapidKeys, VAPID_FILE, vapidSubject } from './vapid-keys.ts';

describe('loadVapidKeys', () => {
  let root: string;
  const logs: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => logs.push(line) });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-vapid-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes a P-256 pair in <configDir>/push-vapid.json (dir 0700, file 0600), then reuses it', async () => {
    const configDir = join(root, 'nested');
    const first = await loadVapidKeys(configDir, { logger });
    expect(first.generated).toBe(true);
    expect(first.publicKey).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    expect(first.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, VAPID_FILE))).mode & 0o777).toBe(0o600);
    expect(await readdir(configDir)).toEqual([VAPID_FILE]);

    const second = await loadVapidKeys(configDir, { logger });
    expect(second).toEqual({ ...first, generated: false });
    expect((await loadVapidKeys(join(root, 'other'), { logger })).publicKey).not.toBe(first.publicKey);
  });

  it('makes one pair when two starts race for it', async () => {
    const [one, other] = await Promise.all([
      loadVapidKeys(root, { logger }),
      loadVapidKeys(root, { logger }),
    ]);
    expect(one.publicKey).toBe(other.publicKey);
    expect([one.generated, other.generated].sort()).toEqual([false, true]);
  });

  it('sets aside an empty, torn or malformed file, or keys that are not a pair, warns, and makes a new pair', async () => {
    const path = join(root, VAPID_FILE);
    const { publicKey, privateKey } = await loadVapidKeys(join(root, 'donor'), { logger });
    const other = await loadVapidKeys(join(root, 'other'), { logger });
    const createdAt = new Date().toISOString();
    const bodies = [
      '',
      '{',
      JSON.stringify({ version: 1, publicKey, createdAt }),
      JSON.stringify({ version: 1, publicKey, privateKey, createdAt, extra: true }),
      JSON.stringify({ version: 1, publicKey: other.publicKey, privateKey, createdAt }),
    ];
    for (const body of bodies) {
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { mode: 0o700 });
      await writeFile(path, body, { mode: 0o600 });
      logs.length = 0;
      const made = await loadVapidKeys(root, { logger });
      expect(made.generated).toBe(true);
      expect([publicKey, other.publicKey]).not.toContain(made.publicKey);
      const aside = (await readdir(root)).filter((name) => name.startsWith(`${VAPID_FILE}.broken-`));
      expect(aside, body).toHaveLength(1);
      expect(await readFile(join(root, aside[0] ?? ''), 'utf8')).toBe(body);
      expect(
        logs.filter((line) => line.includes(aside[0] ?? '')),
        body,
      ).toHaveLength(1);
      expect(await loadVapidKeys(root, { logger })).toEqual({ ...made, generated: false });
    }
    expect(logs.join('\n')).not.toContain(privateKey);
  });

  it('refuses a file other users can read', async () => {
    await loadVapidKeys(root, { logger });
    await chmod(join(root, VAPID_FILE), 0o644);
    await expect(loadVapidKeys(root, { logger })).rejects.toThrow(
      /can be read by other users; run `chmod 600/,
    );
  });
});

describe('vapidSubject', () => {
  it('is the public URL’s origin when it is https, else a mailto:', () => {
    expect(vapidSubject('https://catalyst.example.net/app')).toBe('https://catalyst.example.net');
    expect(vapidSubject('http://192.168.1.5:8080')).toMatch(/^mailto:/);
    expect(vapidSubject(undefined)).toMatch(/^mailto:/);
  });
});
