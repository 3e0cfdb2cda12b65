import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBrowserLogins, type BrowserLogin } from './browser-logins.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const COOKIE_ID = 'a'.repeat(43);

describe('createBrowserLogins', () => {
  let clock: number;
  let saves: BrowserLogin[][];
  /** Writes that fail from now on (a full disk), each counted in `failures`. */
  let failing: boolean;
  let failures: number;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    saves = [];
    failing = false;
    failures = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function create(saveDelayMs = 5 * MINUTE) {
    return createBrowserLogins({
      lifetimeMs: 30 * DAY,
      logger: pino({ level: 'silent' }),
      now: () => clock,
      saveDelayMs,
      save: (sessions) => {
        if (failing) {
          failures += 1;
          return Promise.reject(new Error('ENOSPC: no space left on device'));
        }
        saves.push([...sessions]);
        return Promise.resolve();
      },
    });
  }

  it('saves a login and a sign-out before they resolve', async () => {
    const sessions = create();
    const session = await sessions.add(COOKIE_ID, 'Chrome on Linux');
    expect(session.id).toMatch(/^session-[0-9a-f]{16}$/);
    expect(saves).toEqual([[session]]);
    expect(JSON.stringify(saves)).not.toContain(COOKIE_ID);
    expect(await sessions.end(session.id)).toBe(true);
    expect(saves.at(-1)).toEqual([]);
    expect(await sessions.end(session.id)).toBe(false);
    expect(sessions.use(COOKIE_ID)).toBeUndefined();
    await sessions.close();
  });

  it('writes last-seen times at most once per save delay, however many requests come', async () => {
    const sessions = create();
    await sessions.add(COOKIE_ID, 'Chrome on Linux');
    saves = [];
    for (let request = 0; request < 1_000; request += 1) {
      clock += 250;
      expect(sessions.use(COOKIE_ID)).toBeDefined();
    }
    // 250 s of requests: last seen moved to the minute, nothing written yet.
    expect(saves).toEqual([]);
    expect(sessions.list()[0]?.lastSeenAt).toBe(Date.parse('2030-01-01T00:04:00.000Z'));
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(saves).toHaveLength(1);
    expect(saves[0]?.[0]?.lastSeenAt).toBe(Date.parse('2030-01-01T00:04:00.000Z'));
    // Within the same minute: nothing changes, nothing is scheduled.
    sessions.use(COOKIE_ID);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(saves).toHaveLength(1);
    await sessions.close();
  });

  it('writes what waits when it closes', async () => {
    const sessions = create();
    await sessions.add(COOKIE_ID, 'Chrome on Linux');
    clock += 2 * MINUTE;
    sessions.use(COOKIE_ID);
    await sessions.close();
    expect(saves.at(-1)?.[0]?.lastSeenAt).toBe(clock);
  });

  it('ends a session at its end, tells the listeners, and lists the live ones newest login first', async () => {
    const sessions = create();
    const ended: string[] = [];
    sessions.onEnded((id) => ended.push(id));
    const old = await sessions.add(COOKIE_ID, 'Chrome on Linux');
    clock += DAY;
    const newer = await sessions.add('b'.repeat(43), 'Firefox on Android');
    expect(sessions.list().map((session) => session.id)).toEqual([newer.id, old.id]);
    expect(sessions.expiresAt(old)).toBe(old.createdAt + 30 * DAY);
    clock = old.createdAt + 30 * DAY - 1;
    expect(sessions.use(COOKIE_ID)?.id).toBe(old.id);
    clock += 1;
    expect(sessions.use(COOKIE_ID)).toBeUndefined();
    expect(ended).toEqual([old.id]);
    // One nobody uses ends on the hourly sweep, so its WebSocket closes too.
    clock = newer.createdAt + 30 * DAY;
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    expect(ended).toEqual([old.id, newer.id]);
    expect(sessions.list()).toEqual([]);
    await sessions.close();
  });

  it('keeps a sign-out whose write failed, and writes it on a retry as soon as one succeeds', async () => {
    const sessions = create();
    const ended: string[] = [];
    sessions.onEnded((id) => ended.push(id));
    const session = await sessions.add(COOKIE_ID, 'Chrome on Linux');
    failing = true;
    await expect(sessions.end(session.id)).rejects.toThrow('ENOSPC');
    // Signed out at once, whatever the disk says.
    expect(ended).toEqual([session.id]);
    expect(sessions.use(COOKIE_ID)).toBeUndefined();
    expect(sessions.list()).toEqual([]);
    expect(saves).toEqual([[session]]);
    // Retried every 10 s, long before a last-seen change would be written.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(failures).toBe(2);
    failing = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(saves).toEqual([[session], []]);
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    expect(saves).toHaveLength(2);
    await sessions.close();
  });

  it('writes a sign-out whose write failed when it closes, before any retry', async () => {
    const sessions = create();
    const session = await sessions.add(COOKIE_ID, 'Chrome on Linux');
    failing = true;
    await expect(sessions.end(session.id)).rejects.toThrow('ENOSPC');
    failing = false;
    await sessions.close();
    expect(saves).toEqual([[session], []]);
    // Closed: no retry is left behind.
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    expect(saves).toHaveLength(2);
  });

  it('forgets a login whose write failed: it is never listed nor written', async () => {
    const sessions = create();
    failing = true;
    await expect(sessions.add(COOKIE_ID, 'Chrome on Linux')).rejects.toThrow('ENOSPC');
    expect(sessions.list()).toEqual([]);
    expect(sessions.use(COOKIE_ID)).toBeUndefined();
    failing = false;
    const next = await sessions.add('b'.repeat(43), 'Firefox on Android');
    expect(saves).toEqual([[next]]);
    await sessions.close();
  });
});
