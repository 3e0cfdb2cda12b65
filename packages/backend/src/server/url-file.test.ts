import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localUrlOf, writeUrlFile } from './url-file.ts';

describe('localUrlOf', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:7455'],
    ['0.0.0.0', 'http://127.0.0.1:7455'],
    ['::', 'http://[::1]:7455'],
    ['::1', 'http://[::1]:7455'],
    ['localhost', 'http://localhost:7455'],
  ])('reaches a bind of %s at %s', (bind, url) => {
    expect(localUrlOf(bind, 7455)).toBe(url);
  });
});

describe('writeUrlFile', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-url-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes the URL as JSON, 0600, replacing the one of an earlier start', async () => {
    const logger = pino({ level: 'silent' });
    await writeUrlFile(root, 'http://127.0.0.1:7433', logger);
    await writeUrlFile(root, 'http://127.0.0.1:7455', logger);
    const path = join(root, 'url');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ url: 'http://127.0.0.1:7455' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
