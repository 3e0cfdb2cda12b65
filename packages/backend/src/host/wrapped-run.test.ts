import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import type { RawChannel, RawChannelEnd } from './raw-channel.ts';
import {
  DEFAULT_GRACE_MS,
  resolveRunLimits,
  startWrappedRun,
  type WrappedRunOptions,
} from './wrapped-run.ts';

// The shared run logic against a scripted channel: what the handle writes, how it reads the wrapper's markers,
// and how it settles. The real wrapper is exercised end to end in backend/test/ (local-host.test.ts).

const TAG = 'feedface00000001';

interface FakeChannel extends RawChannel {
  /** The process side of stdout and stderr: what the fake "wrapper" prints. */
  out: PassThrough;
  err: PassThrough;
  written: string[];
  isDestroyed: boolean;
  finish(end: RawChannelEnd): void;
}

function createFakeChannel(): FakeChannel {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let settle: (end: RawChannelEnd) => void = () => undefined;
  const channel: FakeChannel = {
    stdin,
    stdout,
    stderr,
    out: stdout,
    err: stderr,
    written: [],
    isDestroyed: false,
    ended: new Promise((resolve) => (settle = resolve)),
    destroy() {
      channel.isDestroyed = true;
      stdin.destroy();
    },
    finish(end) {
      stdout.end();
      stderr.end();
      settle(end);
    },
  };
  stdin.on('data', (chunk: Buffer) => channel.written.push(...chunk.toString().split('\n').filter(Boolean)));
  return channel;
}

async function start(options: WrappedRunOptions = {}, limits = {}) {
  const channel = createFakeChannel();
  let script = '';
  const handle = await startWrappedRun(
    (call) => {
      // All a command line shows in `ps`: the script and its arguments.
      script = [call.script, call.name, ...call.args].join('\n');
      return Promise.resolve(channel);
    },
    { argv: ['claude', '-p'], cwd: '/srv/p', limits },
    { tag: TAG, ...options },
  );
  return { channel, handle, script };
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += Buffer.from(chunk).toString();
  return text;
}

const marker = `@@catalyst-run started tag=${TAG} pid=77\n`;

afterEach(() => {
  vi.useRealTimers();
});

describe('startWrappedRun', () => {
  it('hands the rendered wrapper to the adapter and strips noise, markers and the trailer', async () => {
    const { channel, handle, script } = await start();
    // The tag is not in the script (a command line in `ps`): it is the first line on the wrapper's stdin.
    expect(script).not.toContain(TAG);
    expect(channel.written[0]).toBe(TAG);
    channel.out.write(`rc noise\n${marker}{"type":"system"}\n`);
    channel.err.write(`rc noise\n${marker}warn\n\n@@catalyst-run ended reason=exit code=0\n`);
    channel.finish({ kind: 'exited', code: 0, signal: null });
    expect(await readAll(handle.stdout)).toBe('{"type":"system"}\n');
    expect(await readAll(handle.stderr)).toBe('warn\n');
    expect(await handle.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
  });

  it('speaks the wrapper protocol on stdin: lines, i, e, c, and refuses what it would misread', async () => {
    const { channel, handle } = await start();
    await handle.writeLine('{"a":1}');
    await expect(handle.writeLine('h')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(handle.writeLine('{"a":\n1}')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    handle.interrupt();
    await handle.endInput();
    await handle.endInput();
    await expect(handle.writeLine('{"b":2}')).rejects.toMatchObject({ code: 'RUN_INPUT_CLOSED' });
    // One `i` per call, and still after `e`: the CLI can hang after its result with its input closed.
    handle.interrupt();
    handle.interrupt();
    handle.cancel();
    handle.cancel();
    await vi.waitFor(() => {
      expect(channel.written).toEqual([TAG, '{"a":1}', 'i', 'e', 'i', 'i', 'c']);
    });
    channel.finish({ kind: 'exited', code: 143, signal: null });
  });

  it('interrupt() records no stop: the run ends as the job does, and a late interrupt() writes nothing', async () => {
    const { channel, handle } = await start();
    handle.interrupt();
    channel.err.write(`${marker}\n@@catalyst-run ended reason=exit code=130\n`);
    channel.finish({ kind: 'exited', code: 130, signal: null });
    expect(await handle.outcome).toEqual({ kind: 'exited', code: 130, signal: null });
    handle.interrupt();
    expect(channel.written).toEqual([TAG, 'i']);
  });

  it('interrupt() on a channel that cannot carry it does nothing: no throw, no stop from outside', async () => {
    const killRun = vi.fn(() => Promise.resolve());
    const { channel, handle } = await start({ killRun });
    channel.stdin.destroy();
    expect(() => {
      handle.interrupt();
    }).not.toThrow();
    channel.finish({ kind: 'lost', message: 'gone' });
    expect(await handle.outcome).toMatchObject({ kind: 'connection_lost' });
    expect(killRun).not.toHaveBeenCalled();
    expect(channel.isDestroyed).toBe(false);
  });

  it('sends a heartbeat every lease/3 and stops once the run has ended', async () => {
    vi.useFakeTimers();
    const { channel, handle } = await start({}, { leaseMs: 3000 });
    await vi.advanceTimersByTimeAsync(3100);
    expect(channel.written).toEqual([TAG, 'h', 'h', 'h']);
    channel.err.write(`${marker}\n@@catalyst-run ended reason=lease code=137\n`);
    channel.finish({ kind: 'exited', code: 137, signal: null });
    expect(await handle.outcome).toEqual({ kind: 'lease_lost' });
    await vi.advanceTimersByTimeAsync(5000);
    expect(channel.written).toEqual([TAG, 'h', 'h', 'h']);
  });

  it('cancel() falls back to the kill script when the channel cannot carry the line', async () => {
    const killRun = vi.fn(() => Promise.resolve());
    const { channel, handle } = await start({ killRun });
    channel.stdin.destroy();
    handle.cancel();
    await vi.waitFor(() => {
      expect(killRun).toHaveBeenCalledWith(TAG);
    });
    channel.err.write(`${marker}\n@@catalyst-run ended reason=cancel code=143\n`);
    channel.finish({ kind: 'exited', code: 143, signal: null });
    expect(await handle.outcome).toEqual({ kind: 'cancelled' });
  });

  it('cancel() stops the run from outside and drops the channel when it does not end in time', async () => {
    vi.useFakeTimers();
    const killRun = vi.fn(() => Promise.resolve());
    const { channel, handle } = await start({ killRun });
    channel.out.write(marker);
    handle.cancel();
    await vi.advanceTimersByTimeAsync(DEFAULT_GRACE_MS + 10_500);
    expect(killRun).toHaveBeenCalledOnce();
    expect(channel.isDestroyed).toBe(true);
    channel.finish({ kind: 'exited', code: null, signal: 'SIGKILL' });
    expect(await handle.outcome).toEqual({ kind: 'cancelled' });
  });

  it('a lost transport settles as connection_lost, and the streams end', async () => {
    const { channel, handle } = await start();
    channel.finish({ kind: 'lost', message: 'keepalive timeout' });
    expect(await handle.outcome).toEqual({ kind: 'connection_lost', message: 'keepalive timeout' });
    expect(await readAll(handle.stdout)).toBe('');
  });

  it('abandon() drops the channel; the outcome is connection_lost', async () => {
    const { channel, handle } = await start();
    channel.out.write(marker);
    handle.abandon();
    expect(channel.isDestroyed).toBe(true);
    channel.finish({ kind: 'exited', code: null, signal: 'SIGPIPE' });
    expect(await handle.outcome).toMatchObject({ kind: 'connection_lost' });
  });

  it('no marker at all: start_failed with what the shell printed', async () => {
    const { channel, handle } = await start();
    channel.err.write('fish: Unknown command: /bin/sh\n');
    channel.finish({ kind: 'exited', code: 127, signal: null });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ kind: 'start_failed', code: 'WRAPPER_UNSUPPORTED' });
    expect(outcome.kind === 'start_failed' && outcome.message).toContain('Unknown command: /bin/sh');
  });

  it('a channel that fails to open is a start_failed outcome, not a rejection', async () => {
    const handle = await startWrappedRun(
      () => Promise.reject(new CatalystError('SSH_CONNECT_FAILED', 'ECONNREFUSED')),
      { argv: ['claude'], cwd: '/srv/p' },
    );
    expect(await handle.outcome).toEqual({
      kind: 'start_failed',
      code: 'SSH_CONNECT_FAILED',
      message: 'ECONNREFUSED',
    });
    await expect(handle.writeLine('{}')).rejects.toMatchObject({ code: 'RUN_INPUT_CLOSED' });
  });

  it('rejects a spec it cannot render, before opening anything', async () => {
    const open = vi.fn();
    await expect(startWrappedRun(open, { argv: [], cwd: '/srv/p' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(open).not.toHaveBeenCalled();
  });
});

describe('resolveRunLimits', () => {
  it('defaults to lease 30 s, grace 5 s, max runtime 6 h, and rejects nonsense', () => {
    expect(resolveRunLimits()).toEqual({ leaseMs: 30_000, graceMs: 5000, maxRuntimeMs: 21_600_000 });
    expect(resolveRunLimits({ graceMs: 0 }).graceMs).toBe(0);
    expect(() => resolveRunLimits({ leaseMs: 0 })).toThrow(/leaseMs/);
    expect(() => resolveRunLimits({ maxRuntimeMs: Number.NaN })).toThrow(/maxRuntimeMs/);
  });
});
