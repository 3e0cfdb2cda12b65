import { describe, expect, it } from 'vitest';
import { createInterruptRequest, createUserMessage } from '@catalyst/protocol';
import {
  SESSION_ID,
  apiErrorResultLine,
  assistantLine,
  canUseToolLine,
  initLine,
  interruptMarkerLine,
  interruptedResultLine,
  successResultLine,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';

const exited = (code: number) => ({ kind: 'exited', code, signal: null }) as const;
const interruptLine = createInterruptRequest('interrupt-run-1');
/** The host's cancel, and the grace after which the run ends without the host's word. */
const KILL = [{ type: 'kill_run' }, { type: 'set_timer', name: 'stop_give_up', ms: 20_000 }] as const;

describe('RunLifecycle: a normal run', () => {
  it('announces the run, writes the prompt, and arms the inactivity and max-duration timers', () => {
    const run = new LifecycleHarness();
    const commands = run.start();
    expect(typesOf(commands)).toEqual(['emit:run:started', 'write_line', 'set_timer', 'set_timer']);
    expect(commands[0]).toMatchObject({
      event: { type: 'run:started', mode: 'build', message: 'Add a README' },
    });
    expect(writtenLines(commands)).toEqual([
      createUserMessage('Add a README', { uuid: run.lifecycle.messageUuid }),
    ]);
    expect(commands).toContainEqual({ type: 'set_timer', name: 'inactivity', ms: 600_000 });
  });

  it('saves the session from init at once, and only when it is new', () => {
    const run = new LifecycleHarness();
    run.start();
    expect(run.line(initLine())).toContainEqual({ type: 'session_started', sessionId: SESSION_ID });
    expect(typesOf(run.line(initLine()))).toEqual(['emit:claude:system']);
    const resumed = new LifecycleHarness({ sessionId: SESSION_ID });
    resumed.start();
    expect(typesOf(resumed.line(initLine()))).toEqual(['emit:claude:system']);
  });

  it('completes: result → claude:result, stdin closed, exit awaited; exit → run:ended then finish', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    run.line(assistantLine({ type: 'text', text: 'Done.' }));
    run.now += 2_500;
    const onResult = run.line(successResultLine());
    expect(typesOf(onResult)).toEqual([
      'emit:claude:result',
      'clear_timer',
      'clear_timer',
      'end_input',
      'set_timer',
    ]);
    expect(onResult[0]).toMatchObject({ event: { result: { success: true, durationMs: 2_500 } } });
    expect(onResult).toContainEqual({ type: 'set_timer', name: 'exit_after_result', ms: 10_000 });
    const onExit = run.outcome(exited(0));
    expect(typesOf(onExit)).toEqual(['clear_timer', 'emit:run:ended', 'finish']);
    expect(onExit[2]).toMatchObject({
      outcome: 'completed',
      result: { result: 'The file has three lines.' },
    });
    expect(onExit[1]).toMatchObject({ event: { type: 'run:ended', outcome: 'completed' } });
    expect(run.lifecycle.isFinished).toBe(true);
    expect(run.timers.size).toBe(0);
  });

  it('fails with the CLI text when the result is an API error (§3.6)', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(apiErrorResultLine());
    const [finish] = finishesOf(run.outcome(exited(1)));
    expect(finish).toMatchObject({ outcome: 'failed', error: { code: 'CLI_FAILED' } });
    expect(finish?.error?.message).toMatch(/^API Error: 529 Overloaded/);
  });

  it('fails with stderr tail when the process exits without a result', () => {
    const run = new LifecycleHarness();
    run.start();
    run.stderr('Error: When using --print, --output-format=stream-json requires --verbose\n');
    const [finish] = finishesOf(run.outcome(exited(1)));
    expect(finish).toEqual({
      type: 'finish',
      outcome: 'failed',
      error: {
        code: 'CLI_FAILED',
        message:
          'Claude exited with code 1 without finishing its turn: Error: When using --print, --output-format=stream-json requires --verbose',
      },
    });
  });

  it('kills a CLI still alive 10 s after its result, and still completes', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine());
    expect(run.advance(9_999)).toEqual([]);
    expect(run.advance(1)).toEqual(KILL);
    expect(finishesOf(run.outcome({ kind: 'cancelled' }))[0]).toMatchObject({ outcome: 'completed' });
  });

  it('relays a second result (§7.2) without closing stdin again or postponing the kill', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine('first'));
    run.advance(6_000);
    expect(typesOf(run.line(successResultLine('second')))).toEqual(['emit:claude:result']);
    expect(run.advance(4_000)).toEqual(KILL);
    expect(finishesOf(run.outcome({ kind: 'cancelled' }))[0]).toMatchObject({ result: { result: 'second' } });
  });

  it('treats a result the parser could not type as the end of the turn, and a failure', () => {
    const run = new LifecycleHarness();
    run.start();
    expect(typesOf(run.line({ ...successResultLine(), subtype: 'error_new_kind' }))).toContain('end_input');
    expect(finishesOf(run.outcome(exited(1)))[0]).toMatchObject({ outcome: 'failed' });
  });
});

describe('RunLifecycle: stopping', () => {
  it('cancel: interrupt, SIGINT at 5 s, kill at 10 s; cancelled whatever the CLI prints then', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    const onCancel = run.cancel();
    expect(writtenLines(onCancel)).toEqual([interruptLine]);
    expect(onCancel).toContainEqual({ type: 'clear_timer', name: 'inactivity' });
    expect(run.advance(4_999)).toEqual([]);
    expect(run.advance(1)).toEqual([
      { type: 'interrupt_process' },
      { type: 'set_timer', name: 'stop_kill', ms: 5_000 },
    ]);
    expect(run.advance(5_000)).toEqual(KILL);
    run.line(successResultLine());
    const [finish] = finishesOf(run.outcome(exited(0)));
    expect(finish).toMatchObject({ outcome: 'cancelled' });
    expect(finish?.error).toBeUndefined();
  });

  it('cancel answered quickly by a result: no SIGINT, stdin closed, cancelled', () => {
    const run = new LifecycleHarness();
    run.start();
    run.cancel();
    run.now += 300;
    run.line({ type: 'control_response', response: { subtype: 'success', request_id: 'interrupt-run-1' } });
    run.line(interruptMarkerLine());
    const onResult = run.line(interruptedResultLine());
    expect(onResult).toContainEqual({ type: 'clear_timer', name: 'stop_sigint' });
    expect(onResult).toContainEqual({ type: 'end_input' });
    expect(run.advance(9_000)).toEqual([]);
    const [finish] = finishesOf(run.outcome(exited(1)));
    expect(finish).toMatchObject({ outcome: 'cancelled', result: { subtype: 'error_during_execution' } });
    expect(typesOf(run.log)).not.toContain('interrupt_process');
    expect(typesOf(run.log)).not.toContain('kill_run');
  });

  it('denies, with interrupt, a tool Claude asks for while the run is stopping', () => {
    const run = new LifecycleHarness();
    run.start();
    run.cancel();
    expect(writtenLines(run.line(canUseToolLine('Write', writeInput)))).toEqual([
      {
        type: 'control_response',
        response: {
          subtype: 'success',
          request_id: 'req-perm-1',
          response: { behavior: 'deny', message: 'Catalyst is stopping this run.', interrupt: true },
        },
      },
    ]);
  });

  it('cancel before the process started (waiting for a channel on a busy host): the run ends at once, cancelled', () => {
    const run = new LifecycleHarness();
    const onCancel = run.cancel();
    expect(typesOf(onCancel)).toEqual(['emit:run:started', 'emit:run:ended', 'finish']);
    expect(finishesOf(onCancel)[0]).toMatchObject({ outcome: 'cancelled' });
    expect(run.timers.size).toBe(0);
    // The process that comes up after all gets nothing from the lifecycle (the driver stops it).
    expect(run.start()).toEqual([]);
    expect(run.outcome({ kind: 'cancelled' })).toEqual([]);
  });

  it('ignores a cancel after the result: the turn is over', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine());
    expect(run.cancel()).toEqual([]);
    expect(finishesOf(run.outcome(exited(0)))[0]).toMatchObject({ outcome: 'completed' });
  });
});

describe('RunLifecycle: timeouts', () => {
  it('times out after 10 minutes of silence, with the exact message, and stops like a cancel', () => {
    const run = new LifecycleHarness();
    run.start();
    run.advance(300_000);
    run.line(assistantLine({ type: 'text', text: 'still here' }));
    // The timer fires at 10 min, sees the line at 5 min, and waits the 5 min that are left.
    expect(run.advance(300_000)).toEqual([{ type: 'set_timer', name: 'inactivity', ms: 300_000 }]);
    expect(writtenLines(run.advance(299_999))).toEqual([]);
    expect(writtenLines(run.advance(1))).toEqual([interruptLine]);
    run.advance(10_000);
    expect(typesOf(run.log)).toContain('kill_run');
    expect(finishesOf(run.outcome(exited(0)))[0]).toEqual({
      type: 'finish',
      outcome: 'timed_out',
      error: { code: 'RUN_TIMED_OUT', message: 'Claude process timed out (no output for 10 minutes)' },
    });
  });

  it.each([
    [2_000, 'Claude process timed out (no output for 2 seconds)'],
    [60_000, 'Claude process timed out (no output for 1 minute)'],
  ])('states the configured figure (%i ms)', (inactivityTimeoutMs, message) => {
    const run = new LifecycleHarness({ inactivityTimeoutMs });
    run.start();
    run.advance(inactivityTimeoutMs);
    expect(finishesOf(run.outcome(exited(0)))[0]?.error).toEqual({ code: 'RUN_TIMED_OUT', message });
  });

  it('pauses while a person is being asked, and starts afresh once every question is settled', () => {
    const run = new LifecycleHarness();
    run.start();
    run.advance(60_000);
    expect(run.pending('q1', true)).toEqual([{ type: 'clear_timer', name: 'inactivity' }]);
    run.pending('q2', true);
    run.advance(3_600_000);
    expect(run.pending('q1', false)).toEqual([]);
    expect(run.pending('q2', false)).toEqual([{ type: 'set_timer', name: 'inactivity', ms: 600_000 }]);
    expect(writtenLines(run.advance(599_999))).toEqual([]);
    expect(writtenLines(run.advance(1))).toEqual([interruptLine]);
  });

  it('keeps the inactivity timer off from the start when a question is already pending', () => {
    const run = new LifecycleHarness();
    run.pending('q1', true);
    expect(run.start()).not.toContainEqual(expect.objectContaining({ name: 'inactivity' }));
    expect(run.pending('q1', false)).toEqual([{ type: 'set_timer', name: 'inactivity', ms: 600_000 }]);
  });

  it('stops a run that outlives its maximum duration, even while it talks', () => {
    const run = new LifecycleHarness({ maxDurationMs: 3 * 3_600_000 });
    run.start();
    for (let minute = 1; minute < 180; minute++) {
      expect(writtenLines(run.advance(60_000))).toEqual([]);
      run.line(assistantLine({ type: 'text', text: `minute ${minute}` }));
    }
    expect(writtenLines(run.advance(60_000))).toEqual([interruptLine]);
    run.advance(10_000);
    expect(finishesOf(run.outcome(exited(0)))[0]?.error?.message).toBe(
      'Claude run timed out (still running after 3 hours)',
    );
  });
});

describe('RunLifecycle: a host that never answers (issue 25, item 1)', () => {
  it('a cancel ends the run 20 s after the kill when the host reports nothing: cancelled, the process let go', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    run.cancel();
    run.advance(5_000);
    expect(run.advance(5_000)).toEqual(KILL);
    expect(run.advance(19_999)).toEqual([]);
    const last = run.advance(1);
    expect(typesOf(last)).toEqual(expect.arrayContaining(['abandon_process', 'emit:run:ended', 'finish']));
    expect(finishesOf(last)).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
    expect(run.timers.size).toBe(0);
    // The outcome that comes after all changes nothing.
    expect(finishesOf(run.outcome({ kind: 'cancelled' }))).toEqual([]);
  });

  it('a CLI that hangs after its result, on a host that never answers, still completes with the result', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine('done'));
    expect(run.advance(10_000)).toEqual(KILL);
    const [finish] = finishesOf(run.advance(20_000));
    expect(finish).toMatchObject({ outcome: 'completed', result: { result: 'done' } });
  });
});

describe('RunLifecycle: a run taken up after a restart', () => {
  it('counts its maximum duration from the run’s start, not from the take-up', () => {
    // The harness's clock starts at 1,000,000 ms: the run began 50 s before it was taken up.
    const run = new LifecycleHarness({ maxDurationMs: 60_000, runStartedAtMs: 950_000 });
    expect(run.start()).toContainEqual({ type: 'set_timer', name: 'max_duration', ms: 10_000 });
  });

  it('one already past its maximum duration is stopped as timed out at once', () => {
    const run = new LifecycleHarness({ maxDurationMs: 60_000, runStartedAtMs: 910_000 });
    const started = run.start();
    expect(started).toContainEqual({ type: 'set_timer', name: 'max_duration', ms: 0 });
  });
});
