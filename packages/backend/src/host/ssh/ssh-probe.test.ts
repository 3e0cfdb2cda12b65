import { describe, expect, it } from 'vitest';
import type { RunHandle } from '../host.ts';
import { runProbe } from './ssh-probe.ts';

describe('runProbe', () => {
  it('a probe whose start never comes ends at its time limit, and a late start is cancelled', async () => {
    let finishStart: (handle: RunHandle) => void = () => undefined;
    const starting = new Promise<RunHandle>((resolve) => {
      finishStart = resolve;
    });
    const result = await runProbe(() => starting, { argv: ['true'] }, 20);
    expect(result).toMatchObject({ isTimedOut: true, stdout: '', outcome: { kind: 'start_failed' } });
    let isCancelled = false;
    finishStart({
      cancel: () => {
        isCancelled = true;
      },
    } as unknown as RunHandle);
    await starting;
    await Promise.resolve();
    expect(isCancelled).toBe(true);
  });

  it('a start that fails is the probe’s failure', async () => {
    const failure = new Error('no channel');
    await expect(runProbe(() => Promise.reject(failure), { argv: ['true'] }, 1_000)).rejects.toBe(failure);
  });
});
