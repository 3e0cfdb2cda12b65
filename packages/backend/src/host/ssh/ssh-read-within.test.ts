import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isCatalystError } from '../../core/catalyst-error.ts';
import type { RawChannel } from '../raw-channel.ts';
import { readWithinOverSsh } from './ssh-read-within.ts';

// readWithin's time limit against a fake channel opener; ssh-host.test.ts runs the read-within contract against a
// real sshd, and sftp-time-limit.test.ts its time limit against a pool whose channels are all stuck.

/** A channel whose script never answers; `destroyed` says whether it was torn down. */
function createSilentChannel(): RawChannel & { destroyed: () => boolean } {
  let isDestroyed = false;
  return {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    ended: new Promise(() => undefined),
    destroy: () => {
      isDestroyed = true;
    },
    destroyed: () => isDestroyed,
  };
}

function settle(action: Promise<unknown>): { outcome: () => unknown } {
  let outcome: unknown = 'pending';
  action.then(
    () => (outcome = 'resolved'),
    (error: unknown) => (outcome = error),
  );
  return { outcome: () => outcome };
}

const LIMIT_MS = 1_000;
const limits = { label: 'vm', timeoutMs: LIMIT_MS };
const request = { root: '/home/u/project', path: 'a.txt', maxBytes: 100 };

describe('readWithin over SSH, within the host’s file time limit', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails with HOST_TIMED_OUT while the pool has no channel free, and tears down the one it gets later', async () => {
    let giveChannel: (channel: RawChannel) => void = () => undefined;
    const open = () => new Promise<RawChannel>((resolve) => (giveChannel = resolve));
    const read = settle(readWithinOverSsh(open, request, limits));
    await vi.advanceTimersByTimeAsync(LIMIT_MS);
    const error = read.outcome();
    expect(isCatalystError(error) && { code: error.code, path: error.details['path'] }).toEqual({
      code: 'HOST_TIMED_OUT',
      path: '/home/u/project/a.txt',
    });
    const late = createSilentChannel();
    giveChannel(late);
    await vi.advanceTimersByTimeAsync(0);
    expect(late.destroyed()).toBe(true);
  });

  it('tears down a channel whose script does not answer within the limit', async () => {
    const channel = createSilentChannel();
    const read = settle(readWithinOverSsh(() => Promise.resolve(channel), request, limits));
    await vi.advanceTimersByTimeAsync(LIMIT_MS - 1);
    expect(read.outcome()).toBe('pending');
    expect(channel.destroyed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(isCatalystError(read.outcome()) && 'timed out').toBe('timed out');
    expect(channel.destroyed()).toBe(true);
  });

  it('passes on a failure to open a channel', async () => {
    const read = settle(readWithinOverSsh(() => Promise.reject(new Error('no route')), request, limits));
    await vi.advanceTimersByTimeAsync(0);
    expect(read.outcome()).toMatchObject({ message: 'no route' });
  });
});
