import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { WarmProcess } from './run-driver-options.ts';
import { WarmSessions } from './warm-sessions.ts';

// The registry's endings with its processes in memory: how a waiting claude is ended, and that one whose stop never
// arrives (its connection was lost) is let go after a grace instead of being awaited for ever. The registry with real
// claude processes is in test/warm-turns.test.ts and test/mode-switch.test.ts.

/** A waiting claude that exits when its input closes, when stopped, or never (its stop lost with its connection). */
function warmProcess(exits: 'on input end' | 'on stop' | 'never') {
  const calls: string[] = [];
  let exit: () => void = () => undefined;
  const over = new Promise<void>((resolve) => {
    exit = resolve;
  });
  let isOver = false;
  void over.then(() => (isOver = true));
  let printIdle: () => void = () => undefined;
  let hasIdleOutput = false;
  const idleOutput = new Promise<void>((resolve) => {
    printIdle = () => {
      hasIdleOutput = true;
      resolve();
    };
  });
  const run = {
    endInput: () => {
      calls.push('endInput');
      if (exits === 'on input end') exit();
      return Promise.resolve();
    },
    cancel: () => {
      calls.push('cancel');
      if (exits === 'on stop') exit();
    },
    abandonStopping: () => {
      calls.push('abandonStopping');
    },
  };
  const process = {
    run,
    over,
    startedAt: Date.now(),
    sessionId: 'session-0',
    get isOver() {
      return isOver;
    },
    idleOutput,
    get hasIdleOutput() {
      return hasIdleOutput;
    },
  };
  return { warm: { process, mode: 'chat', costBaseUsd: 0 } as unknown as WarmProcess, calls, printIdle };
}

function registry() {
  return new WarmSessions({
    perHost: 4,
    maxTurnMs: 60_000,
    logger: pino({ level: 'silent' }),
    exitGraceMs: 20,
    stopGraceMs: 40,
  });
}

describe('WarmSessions', () => {
  it('ends a waiting claude by closing its input; stops one that does not exit then, and waits for it', async () => {
    const warm = registry();
    const closing = warmProcess('on input end');
    const stopped = warmProcess('on stop');
    warm.keep('idea-a', 'vm', 'chat', closing.warm);
    warm.keep('idea-b', 'vm', 'chat', stopped.warm);
    await warm.endAll();
    expect(closing.calls).toEqual(['endInput']);
    expect(stopped.calls).toEqual(['endInput', 'cancel']);
  });

  it('lets a claude go that neither exits nor stops, rather than waiting on it for ever', async () => {
    const warm = registry();
    const lost = warmProcess('never');
    warm.keep('idea-a', 'vm', 'chat', lost.warm);
    // Catalyst's stop goes on.
    await warm.endAll();
    expect(lost.calls).toEqual(['endInput', 'cancel', 'abandonStopping']);

    // The idea's next turn, in another mode, goes on.
    const used = warmProcess('never');
    warm.keep('idea-b', 'vm', 'chat', used.warm);
    expect(await warm.take('idea-b', 'build')).toBeUndefined();
    expect(used.calls).toEqual(['endInput', 'cancel', 'abandonStopping']);

    // A mode switch's retire: the next claude's wait for its exit ends.
    const retired = warmProcess('never');
    warm.retire('idea-c', retired.warm);
    await warm.ended('idea-c');
    expect(retired.calls).toEqual(['endInput', 'cancel', 'abandonStopping']);

    // The idea deleted: its stop goes on.
    const deleted = warmProcess('never');
    warm.keep('idea-d', 'vm', 'chat', deleted.warm);
    await warm.stop('idea-d');
    expect(deleted.calls).toEqual(['cancel', 'cancel', 'abandonStopping']);
  });

  it('retires a claude that prints while it waits (a turn of its own), and the next turn waits for its exit', async () => {
    const warm = registry();
    const unasked = warmProcess('on input end');
    warm.keep('idea-a', 'vm', 'chat', unasked.warm);
    unasked.printIdle();
    await unasked.warm.process.idleOutput;
    expect(warm.has('idea-a')).toBe(false);
    expect(unasked.calls).toEqual(['endInput']);
    expect(await warm.take('idea-a', 'chat')).toBeUndefined();
    expect(unasked.warm.process.isOver).toBe(true);

    // Printed before it was taken, yet not retired by then: not used.
    const late = warmProcess('on input end');
    warm.keep('idea-b', 'vm', 'chat', late.warm);
    late.printIdle();
    expect(await warm.take('idea-b', 'chat')).toBeUndefined();
    expect(late.calls).toEqual(['endInput']);
  });

  it('gives a waiting run the channel of the host`s least recently used claude, and the idea`s next turn waits for its exit', async () => {
    const warm = registry();
    const older = warmProcess('on input end');
    const newer = warmProcess('on input end');
    const elsewhere = warmProcess('on input end');
    warm.keep('idea-old', 'vm', 'chat', older.warm);
    warm.keep('idea-other-host', 'other', 'chat', elsewhere.warm);
    await new Promise((resolve) => setTimeout(resolve, 2));
    warm.keep('idea-new', 'vm', 'chat', newer.warm);

    expect(warm.yieldOne('vm')).toBe(true);
    expect(older.calls).toEqual(['endInput']);
    expect(warm.has('idea-old')).toBe(false);
    expect({ newer: newer.calls, elsewhere: elsewhere.calls }).toEqual({ newer: [], elsewhere: [] });
    await warm.ended('idea-old');
    expect(older.warm.process.isOver).toBe(true);

    expect(warm.yieldOne('vm')).toBe(true);
    expect(warm.yieldOne('vm')).toBe(false);
    expect(warm.has('idea-other-host')).toBe(true);
  });
});
