import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../core/run-outcome.ts';
import {
  askInput,
  bashWriteInput,
  canUseToolLine,
  initLine,
  successResultLine,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';
import { CHAT_READ_ONLY_MESSAGE } from './tool-policy.ts';

describe('RunLifecycle: how the host ending maps to the outcome', () => {
  it.each<[string, RunOutcome, object]>([
    [
      'a lost connection',
      { kind: 'connection_lost', message: 'SSH connection to dev@vm:22 closed' },
      {
        outcome: 'connection_lost',
        error: { code: 'CONNECTION_LOST', message: 'SSH connection to dev@vm:22 closed' },
      },
    ],
    [
      'a lapsed lease',
      { kind: 'lease_lost' },
      { outcome: 'connection_lost', error: { code: 'CONNECTION_LOST' } },
    ],
    [
      'the wrapper max runtime',
      { kind: 'max_runtime' },
      { outcome: 'timed_out', error: { code: 'RUN_TIMED_OUT' } },
    ],
    ['a cancel from elsewhere', { kind: 'cancelled' }, { outcome: 'cancelled' }],
    [
      'a signal',
      { kind: 'exited', code: null, signal: 'SIGKILL' },
      {
        outcome: 'failed',
        error: { message: 'Claude was stopped by SIGKILL without finishing its turn (stderr was empty)' },
      },
    ],
  ])('mid-turn, %s', (_name, outcome, expected) => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    const commands = run.outcome(outcome);
    expect(finishesOf(commands)[0]).toMatchObject(expected);
    expect(
      commands.find((command) => command.type === 'emit' && command.event.type === 'run:ended'),
    ).toMatchObject({
      event: expected,
    });
  });

  it('keeps a completed turn completed when the connection drops while the CLI exits', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine());
    expect(finishesOf(run.outcome({ kind: 'connection_lost', message: 'gone' }))[0]).toMatchObject({
      outcome: 'completed',
    });
  });

  it('a run that could not start still announces itself, then fails with the start code', () => {
    const run = new LifecycleHarness();
    const commands = run.outcome({
      kind: 'start_failed',
      code: 'CLI_NOT_FOUND',
      message: 'claude was not found',
    });
    expect(typesOf(commands)).toEqual(['emit:run:started', 'emit:run:ended', 'finish']);
    expect(commands[2]).toEqual({
      type: 'finish',
      outcome: 'failed',
      error: { code: 'CLI_NOT_FOUND', message: 'claude was not found' },
    });
  });

  it('ignores everything after finish, and a timer fire that raced its clear', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine());
    expect(run.feed({ type: 'timer_fired', name: 'stop_kill', now: run.now })).toEqual([]);
    run.outcome({ kind: 'exited', code: 0, signal: null });
    expect(run.feed({ type: 'timer_fired', name: 'exit_after_result', now: run.now })).toEqual([]);
    expect(run.cancel()).toEqual([]);
    expect(run.outcome({ kind: 'exited', code: 0, signal: null })).toEqual([]);
    expect(finishesOf(run.log)).toHaveLength(1);
  });

  it('relays a broken stdout line and stderr, and counts them as signs of life', () => {
    const run = new LifecycleHarness({ inactivityTimeoutMs: 1_000 });
    run.start();
    run.advance(900);
    const event = { kind: 'unparsable_line', sample: 'oops', byteLength: 4, error: 'bad' } as const;
    expect(typesOf(run.feed({ type: 'stream_error', event, now: run.now }))).toEqual(['emit:claude:error']);
    run.advance(900);
    expect(typesOf(run.stderr('Warning: something\n'))).toEqual(['emit:claude:error']);
    expect(writtenLines(run.advance(999))).toEqual([]);
    expect(writtenLines(run.advance(1))).toHaveLength(1);
  });
});

describe('RunLifecycle: a result of a turn the CLI ran by itself', () => {
  /** 2.1.331 (measured in test/mode-switch.test.ts): a task notification's turn; no api_error_status. */
  const ownTurnResult = () => {
    const { api_error_status: _absent, ...line } = successResultLine('');
    return { ...line, num_turns: 0, origin: { kind: 'task-notification' } };
  };

  it('goes on to the result of the message sent, typed or not', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(initLine());
    // Not the turn's end: stdin stays open for the answer to come.
    expect(run.line(ownTurnResult())).not.toContainEqual({ type: 'end_input' });
    // One the parser cannot type still says where it came from.
    expect(run.line({ ...ownTurnResult(), total_cost_usd: 'x' })).not.toContainEqual({ type: 'end_input' });
    expect(run.line(successResultLine('The answer.'))).toContainEqual({ type: 'end_input' });
    const [finish] = finishesOf(run.outcome({ kind: 'exited', code: 0, signal: null }));
    expect(finish).toMatchObject({ outcome: 'completed', result: { result: 'The answer.' } });
  });

  it('ends a stop, as any result does (the interrupt may land in the CLI’s own turn)', () => {
    const run = new LifecycleHarness();
    run.start();
    run.cancel();
    expect(run.line(ownTurnResult())).toContainEqual({ type: 'end_input' });
  });
});

describe('RunLifecycle: answering can_use_tool', () => {
  function answerTo(mode: 'chat' | 'build', toolName: string, input: Record<string, unknown>) {
    const run = new LifecycleHarness({ mode });
    run.start();
    const commands = run.line(canUseToolLine(toolName, input));
    expect(typesOf(commands)[0]).toBe('emit:claude:event');
    return { commands, answer: writtenLines(commands)[0] };
  }

  it.each([
    ['Write', writeInput],
    ['Bash', bashWriteInput],
  ])('chat denies %s', (toolName, input) => {
    expect(answerTo('chat', toolName, input).answer).toMatchObject({
      response: { response: { behavior: 'deny', message: CHAT_READ_ONLY_MESSAGE } },
    });
  });

  it('build allows, echoing the input as updatedInput', () => {
    expect(answerTo('build', 'Write', writeInput).answer).toMatchObject({
      response: { request_id: 'req-perm-1', response: { behavior: 'allow', updatedInput: writeInput } },
    });
  });

  it('answers AskUserQuestion with no answers, and logs it', () => {
    const { commands, answer } = answerTo('chat', 'AskUserQuestion', askInput);
    expect(answer).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'req-perm-1',
        response: { behavior: 'allow', updatedInput: askInput },
      },
    });
    expect(commands).toContainEqual(expect.objectContaining({ type: 'log', level: 'info' }));
  });

  it('answers nothing once stdin is closed', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(successResultLine());
    const commands = run.line(canUseToolLine('Write', writeInput));
    expect(writtenLines(commands)).toEqual([]);
    expect(typesOf(commands)).toContain('log');
  });
});
