import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { openBrowserLogins, SESSIONS_FILE } from './logins-file.ts';

const TOKEN = 'sessions-file-test-token-0123456789abcdefghij';
const COOKIE_ID = 'c'.repeat(43);
const logger = pino({ level: 'silent' });

describe('openBrowserLogins', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-sessions-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const open = (configDir: string, token = TOKEN) =>
    openBrowserLogins({ configDir, token, lifetimeMs: 86_400_000, logger });

  it('keeps sessions in <configDir>/sessions.json (dir 0700, file 0600) for the next start', async () => {
    const configDir = join(root, 'nested');
    const first = await open(configDir);
    const session = await first.add(COOKIE_ID, 'Chrome on Linux');
    await first.close();
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    const path = join(configDir, SESSIONS_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(COOKIE_ID);
    expect(text).not.toContain(TOKEN);

    const second = await open(configDir);
    expect(second.use(COOKIE_ID)).toEqual(session);
    await second.close();
  });

  it('starts with none under another token', async () => {
    const first = await open(root);
    await first.add(COOKIE_ID, 'Chrome on Linux');
    await first.close();
    const second = await open(root, `${TOKEN}-rotated`);
    expect(second.list()).toEqual([]);
    await second.close();
  });

  it('sets a damaged file aside with a warning and starts with no session (issue 39)', async () => {
    const path = join(root, SESSIONS_FILE);
    const texts = ['', '{', '{"version":1}', '{"version":1,"tokenCheck":"x","sessions":[]}'];
    for (const [index, text] of texts.entries()) {
      const warnings: string[] = [];
      const watched = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
      await writeFile(path, text, { mode: 0o600 });
      const now = () => Date.parse('2030-01-01T00:00:00.000Z') + index;
      const sessions = await openBrowserLogins({
        configDir: root,
        token: TOKEN,
        lifetimeMs: 1,
        logger: watched,
        now,
      });
      expect(sessions.list()).toEqual([]);
      await sessions.close();
      const keptAs = `${path}.broken-2030-01-01T00-00-00-00${String(index)}Z`;
      expect(await readFile(keptAs, 'utf8')).toBe(text);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(keptAs);
    }
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a file others can read', async () => {
    const path = join(root, SESSIONS_FILE);
    const fresh = await open(root);
    await fresh.add(COOKIE_ID, 'Chrome on Linux');
    await fresh.close();
    await chmod(path, 0o644);
    const error: unknown = await open(root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalystError);
    expect(String(error)).toContain('chmod 600');
  });

  it('leaves no temporary file beside the one it writes', async () => {
    const sessions = await open(root);
    await sessions.add(COOKIE_ID, 'Chrome on Linux');
    await sessions.close();
    expect(await readdir(root)).toEqual([SESSIONS_FILE]);
  });
});
