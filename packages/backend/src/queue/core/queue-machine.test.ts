import { describe, expect, it } from 'vitest';
import { CONTINUE_MESSAGE, handleQueue } from './queue-machine.ts';
import type { RunEnding } from '../../runs/core/run-ending.ts';
import {
  budgetStop,
  completed,
  eventsOf,
  failed,
  feed,
  ideaId,
  movesOf,
  next,
  queueOf,
  runStep,
} from '../../../test/support/queue-test-kit.ts';

// The queue's decisions (issues 12 and 30), input by input: what runs next and with what, when it pauses and why,
// how it ends. Runs other than its step's own: queue-other-runs.test.ts; a person's changes: queue-edits.test.ts.
// The same machine under its driver, with runs in memory: queue/autopilots.test.ts.

describe('the queue machine: what runs next', () => {
  it('launches the first waiting step with the autopilot’s policy and the next step’s mode, and takes it from a person', () => {
    const { state, commands } = feed(queueOf('autopilot', ['A', 'B']), next);
    expect(commands).toEqual([
      { type: 'launch', mode: 'chat', message: 'A', overrides: { questionPolicy: 'auto', nextMode: 'chat' } },
    ]);
    expect(state.steps[0]?.isLaunching).toBe(true);
    const started = feed(state, { type: 'launched', runId: 'r1' });
    expect(eventsOf(started.commands)).toEqual([
      { type: 'autopilot:step_started', ideaId, runId: 'r1', autopilotId: 'ap-1', index: 0 },
    ]);
    expect(started.state.steps[0]).toMatchObject({ state: 'running', runId: 'r1', isLaunching: false });
  });

  it('a plain queue’s runs follow the idea’s policy; the last step names no next mode', () => {
    expect(feed(queueOf('queue', ['A']), next).commands).toEqual([
      { type: 'launch', mode: 'chat', message: 'A', overrides: {} },
    ]);
  });

  it('waits while paused (a person’s run or not), waits for a person’s run to end, and ends when nothing waits', () => {
    const paused = feed(queueOf('queue', ['A']), next, {
      type: 'launch_failed',
      error: { code: 'BUDGET_EXCEEDED', message: 'Spent.' },
      isIdeaBusy: false,
    }).state;
    expect(movesOf(feed(paused, { type: 'next', isIdeaBusy: true }).commands)).toEqual([{ type: 'wait' }]);
    expect(movesOf(feed(queueOf('queue', ['A']), { type: 'next', isIdeaBusy: true }).commands)).toEqual([
      { type: 'wait_until_free' },
    ]);
    const done = runStep(queueOf('queue', ['A']), 'r1', completed(0.01));
    const ended = feed(done.state, next);
    expect(ended.commands).toEqual([
      {
        type: 'end',
        event: { type: 'autopilot:ended', ideaId, autopilotId: 'ap-1', state: 'completed', costUsd: 0.01 },
      },
    ]);
    expect(ended.state.isEnding).toBe(true);
  });

  it('caps each step’s run at what the budget leaves, and pauses before a step once it is spent', () => {
    const first = feed(queueOf('autopilot', ['A', 'B'], { maxBudgetUsd: 0.05 }), next);
    expect(first.commands[0]).toMatchObject({
      overrides: { budgetCap: { key: 'ap-1/0.05', remainingUsd: 0.05 } },
    });
    const spent = feed(
      first.state,
      { type: 'launched', runId: 'r1' },
      { type: 'step_ended', runId: 'r1', ending: completed(0.06) },
    );
    const paused = feed(spent.state, next);
    expect(eventsOf(paused.commands)).toEqual([
      {
        type: 'autopilot:paused',
        ideaId,
        autopilotId: 'ap-1',
        reason: 'budget',
        message:
          'Paused before step 2: It has spent $0.0600 of its $0.0500 budget; raise it, or run one more step, to go on.',
      },
    ]);
    expect(movesOf(paused.commands)).toEqual([]);
    expect(movesOf(feed(paused.state, next).commands)).toEqual([{ type: 'wait' }]);
  });

  it('one more step runs past the budget without a cap, once', () => {
    const spent = runStep(
      queueOf('autopilot', ['A', 'B', 'C'], { maxBudgetUsd: 0.01 }),
      'r1',
      completed(0.02),
    );
    const paused = feed(spent.state, next).state;
    const goingOn = feed(paused, { type: 'go_on', oneMoreStep: true }, next);
    expect(movesOf(goingOn.commands)).toEqual([
      { type: 'launch', mode: 'chat', message: 'B', overrides: { questionPolicy: 'auto', nextMode: 'chat' } },
    ]);
    const after = feed(goingOn.state, { type: 'launched', runId: 'r2' });
    expect(after.state.oneMoreStep).toBe(false);
    const again = feed(after.state, { type: 'step_ended', runId: 'r2', ending: completed(0.01) }, next);
    expect(again.state.paused).toBe('budget');
  });

  it('a cancelled queue ends cancelled, even one that had failed before', () => {
    const failing = runStep(
      queueOf('autopilot', ['A', 'B'], { stopOnFailure: false }),
      'r1',
      failed('It broke.'),
    );
    const { commands } = feed(failing.state, { type: 'cancel' }, next);
    expect(movesOf(commands)).toEqual([
      {
        type: 'end',
        event: { type: 'autopilot:ended', ideaId, autopilotId: 'ap-1', state: 'cancelled', costUsd: 0 },
      },
    ]);
  });
});

describe('the queue machine: a step that cannot start', () => {
  const failure = (code: 'RUN_IN_PROGRESS' | 'BUDGET_EXCEEDED' | 'HOST_UNAVAILABLE', isIdeaBusy = false) =>
    ({ type: 'launch_failed', error: { code, message: `No (${code}).` }, isIdeaBusy }) as const;

  it('waits for a person’s run that took the idea meanwhile, and tries again', () => {
    const { state, commands } = feed(queueOf('queue', ['A']), next, failure('RUN_IN_PROGRESS', true));
    expect(commands.slice(1)).toEqual([]);
    expect(state.steps[0]).toMatchObject({ state: 'pending', isLaunching: false });
  });

  it('pauses on the idea’s own budget, saying so, for either kind', () => {
    for (const kind of ['queue', 'autopilot'] as const) {
      const { state, commands } = feed(queueOf(kind, ['A']), next, failure('BUDGET_EXCEEDED'));
      expect(state.paused).toBe('budget');
      expect(eventsOf(commands)).toMatchObject([
        { type: 'autopilot:paused', message: 'No (BUDGET_EXCEEDED).' },
      ]);
    }
  });

  it('a plain queue pauses, saying which step could not start', () => {
    const { state, commands } = feed(queueOf('queue', ['A']), next, failure('HOST_UNAVAILABLE'));
    expect(state.paused).toBe('failed');
    expect(eventsOf(commands)).toMatchObject([
      { reason: 'failed', message: 'Step 1 could not start: No (HOST_UNAVAILABLE).' },
    ]);
  });

  it('an autopilot tries again when the idea was busy but is no longer', () => {
    const { state, commands } = feed(queueOf('autopilot', ['A']), next, failure('RUN_IN_PROGRESS'));
    expect(commands.slice(1)).toEqual([]);
    expect(movesOf(feed(state, next).commands)).toMatchObject([{ type: 'launch', message: 'A' }]);
  });

  it('an autopilot records the step failed and stops, or goes on without stopOnFailure and still ends failed', () => {
    const stopping = feed(queueOf('autopilot', ['A', 'B']), next, failure('HOST_UNAVAILABLE'));
    const error = { code: 'HOST_UNAVAILABLE', message: 'Step 1 failed: No (HOST_UNAVAILABLE).' };
    expect(stopping.commands.slice(1)).toEqual([
      {
        type: 'emit',
        event: {
          type: 'autopilot:step_ended',
          ideaId,
          autopilotId: 'ap-1',
          index: 0,
          state: 'failed',
          error: { code: 'HOST_UNAVAILABLE', message: 'No (HOST_UNAVAILABLE).' },
        },
      },
      {
        type: 'end',
        event: { type: 'autopilot:ended', ideaId, autopilotId: 'ap-1', state: 'failed', costUsd: 0, error },
      },
    ]);
    const goingOn = feed(
      queueOf('autopilot', ['A', 'B'], { stopOnFailure: false }),
      next,
      failure('HOST_UNAVAILABLE'),
    );
    expect(movesOf(goingOn.commands.slice(1))).toEqual([]);
    const rest = runStep(goingOn.state, 'r2', completed(0));
    expect(movesOf(feed(rest.state, next).commands)).toMatchObject([{ event: { state: 'failed', error } }]);
  });
});

describe('the queue machine: how a step’s run ended', () => {
  it('a completed step adds its cost and records its result and questions', () => {
    const questions = {
      questionsAsked: 2,
      questionsAnsweredAutomatically: 1,
      autoAnswerRetries: 0,
      auxiliaryCostUsd: 0.001,
    };
    const { state, commands } = feed(
      queueOf('autopilot', ['A', 'B']),
      next,
      { type: 'launched', runId: 'r1' },
      { type: 'step_ended', runId: 'r1', ending: completed(0.02), questions },
    );
    expect(state.costUsd).toBe(0.02);
    expect(state.steps[0]).toMatchObject({ state: 'completed', runId: 'r1' });
    expect(eventsOf(commands).at(-1)).toEqual({
      type: 'autopilot:step_ended',
      ideaId,
      runId: 'r1',
      autopilotId: 'ap-1',
      index: 0,
      state: 'completed',
      result: completed(0.02).result,
      questions,
    });
    // The step's end is no move of its own: the loop asks what comes next.
    expect(commands.at(-1)?.type).toBe('emit');
    expect(movesOf(feed(state, next).commands)).toMatchObject([{ type: 'launch', message: 'B' }]);
  });

  it('the CLI’s own budget stop pauses the step mid-way; gone on with, it continues in its session', () => {
    const stopped = runStep(queueOf('autopilot', ['A', 'B'], { maxBudgetUsd: 0.05 }), 'r1', budgetStop(0.05));
    expect(stopped.state.steps[0]).toMatchObject({ state: 'paused', runId: 'r1' });
    expect(eventsOf(stopped.commands).at(-1)).toMatchObject({
      type: 'autopilot:paused',
      reason: 'budget',
      message:
        'Step 1 stopped at its budget. It has spent $0.0500 of its $0.0500 budget; raise it, or run one more step, to go on.',
    });
    const raised = feed(stopped.state, { type: 'set_budget', maxBudgetUsd: 0.1 }, next);
    expect(movesOf(raised.commands)).toMatchObject([{ type: 'launch', message: CONTINUE_MESSAGE }]);
    // The same step goes on: its new run replaces the old.
    const again = feed(raised.state, { type: 'launched', runId: 'r2' });
    expect(eventsOf(again.commands)).toMatchObject([
      { type: 'autopilot:step_started', index: 0, runId: 'r2' },
    ]);
  });

  it('a step a person stopped: an autopilot ends cancelled, a queue waits while more waits, else ends', () => {
    const cancelled: RunEnding = { outcome: 'cancelled' };
    const autopilot = runStep(queueOf('autopilot', ['A', 'B'], { stopOnFailure: false }), 'r1', cancelled);
    expect(movesOf(autopilot.commands)).toMatchObject([{ type: 'end', event: { state: 'cancelled' } }]);
    expect(autopilot.state.isCancelled).toBe(true);
    const queue = runStep(queueOf('queue', ['A', 'B']), 'r1', cancelled);
    expect(eventsOf(queue.commands).at(-1)).toMatchObject({
      type: 'autopilot:paused',
      reason: 'cancelled',
      message: 'You stopped step 1; the rest waits.',
    });
    const last = runStep(queueOf('queue', ['A']), 'r1', cancelled);
    expect(movesOf(last.commands)).toMatchObject([{ type: 'end', event: { state: 'cancelled' } }]);
  });

  it('a failed step: a queue waits while more waits, else ends failed; an autopilot stops on failure', () => {
    const queue = runStep(queueOf('queue', ['A', 'B']), 'r1', failed('It broke.'));
    expect(eventsOf(queue.commands).at(-1)).toMatchObject({
      reason: 'failed',
      message: 'Step 1 failed: It broke. The rest waits.',
    });
    const last = runStep(queueOf('queue', ['A']), 'r1', failed('It broke.'));
    expect(movesOf(last.commands)).toMatchObject([
      { event: { state: 'failed', error: { code: 'CLI_FAILED', message: 'Step 1 failed: It broke.' } } },
    ]);
    const autopilot = runStep(queueOf('autopilot', ['A', 'B']), 'r1', { outcome: 'timed_out' });
    expect(movesOf(autopilot.commands)).toMatchObject([
      {
        event: {
          state: 'failed',
          error: { code: 'CLI_FAILED', message: 'Step 1 failed: it ended timed_out' },
        },
      },
    ]);
  });

  it('an autopilot without stopOnFailure goes on past a failed step and ends failed with the first failure', () => {
    const first = runStep(
      queueOf('autopilot', ['A', 'B', 'C'], { stopOnFailure: false }),
      'r1',
      failed('One.'),
    );
    expect(movesOf(first.commands)).toEqual([]);
    expect(movesOf(feed(first.state, next).commands)).toMatchObject([{ type: 'launch', message: 'B' }]);
    const second = runStep(first.state, 'r2', failed('Two.'));
    const third = runStep(second.state, 'r3', completed(0));
    expect(movesOf(feed(third.state, next).commands)).toMatchObject([
      { event: { state: 'failed', error: { message: 'Step 1 failed: One.' } } },
    ]);
  });

  it('the end of a run no step had is nothing', () => {
    const state = queueOf('queue', ['A']);
    expect(handleQueue(state, { type: 'step_ended', runId: 'elsewhere', ending: completed(1) })).toEqual({
      state,
      commands: [],
    });
  });
});

describe('the queue machine is pure', () => {
  it('never changes the state it is given', () => {
    const state = queueOf('queue', ['A', 'B']);
    const copy = structuredClone(state);
    feed(state, next, { type: 'launched', runId: 'r1' }, { type: 'cancel' }, { type: 'clear' });
    handleQueue(state, next);
    handleQueue(state, { type: 'remove', stepId: 's2' });
    expect(state).toEqual(copy);
  });
});
