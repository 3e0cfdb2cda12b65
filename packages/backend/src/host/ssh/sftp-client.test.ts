import { EventEmitter } from 'node:events';
import type { SFTPWrapper } from 'ssh2';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { caught } from '@catalyst/testkit';
import { isCatalystError } from '../../core/catalyst-error.ts';
import { createSharedSftp } from './sftp-client.ts';
import type { SshPool } from './ssh-pool.ts';

// The shared SFTP session's life against a fake pool whose opens the test answers; sftp-time-limit.test.ts runs
// it against a real sshd whose sessions are stuck on FIFOs.

class FakeSftp extends EventEmitter {
  hasEnded = false;
  end(): void {
    this.hasEnded = true;
  }
}

/** A pool whose every open waits until the test answers it, as one whose channels are all busy. */
function createSlowPool() {
  const pending: ((sftp: FakeSftp) => void)[] = [];
  const pool: SshPool = {
    open: <T>() =>
      new Promise<T>((resolve) => {
        pending.push((sftp) => {
          resolve(sftp as unknown as T);
        });
      }),
    stats: () => {
      throw new Error('not used');
    },
    close: () => Promise.resolve(),
  };
  const answer = (sftp: FakeSftp) => {
    const next = pending.shift();
    if (next === undefined) throw new Error('no open is waiting');
    next(sftp);
  };
  return { pool, answer, opens: () => pending.length };
}

const LIMIT_MS = 1_000;
/** sftp-client.ts's idle spell. */
const IDLE_MS = 2_000;
const call = { action: 'stat', path: '/home/u/a.txt' };

describe('the shared SFTP session', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a session that opens after every call waiting for it timed out', async () => {
    const { pool, answer } = createSlowPool();
    const withSftp = createSharedSftp(pool, { label: 'vm', timeoutMs: LIMIT_MS });
    const failed = caught(withSftp(call, () => Promise.resolve('never')));
    await vi.advanceTimersByTimeAsync(LIMIT_MS);
    const error = await failed;
    expect(isCatalystError(error) && error.code).toBe('HOST_TIMED_OUT');
    const late = new FakeSftp();
    answer(late);
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
    expect(late.hasEnded).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    // Left open, it would hold a MaxSessions slot of the pool for good, and its connection would never idle out.
    expect(late.hasEnded).toBe(true);
  });

  it('lets a call still waiting use a session that opened late, then ends it when idle', async () => {
    const { pool, answer, opens } = createSlowPool();
    const withSftp = createSharedSftp(pool, { label: 'vm', timeoutMs: LIMIT_MS });
    const first = caught(withSftp(call, () => Promise.resolve('never')));
    await vi.advanceTimersByTimeAsync(LIMIT_MS / 2);
    let finish: (value: string) => void = () => undefined;
    const second = withSftp(call, () => new Promise<string>((resolve) => (finish = resolve)));
    await vi.advanceTimersByTimeAsync(LIMIT_MS / 2);
    expect(isCatalystError(await first) && 'timed out').toBe('timed out');
    const late = new FakeSftp();
    answer(late);
    expect(opens()).toBe(0);
    // In use past the idle spell counted from its opening: not ended under the call.
    await vi.advanceTimersByTimeAsync(LIMIT_MS / 4);
    expect(late.hasEnded).toBe(false);
    finish('done');
    expect(await second).toBe('done');
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(late.hasEnded).toBe(true);
  });

  it('ends a session stuck past the limit, and the next call gets a new one', async () => {
    const { pool, answer, opens } = createSlowPool();
    const withSftp = createSharedSftp(pool, { label: 'vm', timeoutMs: LIMIT_MS });
    const stuck = new FakeSftp();
    const failed = caught(withSftp(call, () => new Promise<never>(() => undefined)));
    answer(stuck);
    await vi.advanceTimersByTimeAsync(LIMIT_MS);
    expect(isCatalystError(await failed) && 'timed out').toBe('timed out');
    expect(stuck.hasEnded).toBe(true);
    const next = withSftp(call, (sftp) => Promise.resolve(sftp));
    expect(opens()).toBe(1);
    const fresh = new FakeSftp();
    answer(fresh);
    expect(await next).toBe(fresh as unknown as SFTPWrapper);
  });
});
