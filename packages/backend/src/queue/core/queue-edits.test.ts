import { describe, expect, it } from 'vitest';
import { MAX_AUTOPILOT_STEPS } from '@catalyst/protocol';
import {
  handleQueue,
  mayGoOnOnceIdeaBudgetAllows,
  type QueueCommand,
  type QueueState,
} from './queue-machine.ts';
import { completed, eventsOf, feed, ideaId, next, queueOf } from '../../../test/support/queue-test-kit.ts';

// What a person does to a queue (issue 30), input by input: its waiting steps edited, moved, removed, cleared or
// sent now, its budget changed, a paused queue gone on with, a cancel.

/** The messages of each `autopilot:queue_changed`'s pending steps. */
const pendings = (commands: QueueCommand[]) =>
  eventsOf(commands).flatMap((event) =>
    event.type === 'autopilot:queue_changed' ? [event.pending.map((step) => step.message)] : [],
  );
const messages = (state: QueueState) => state.steps.map((step) => `${step.message}: ${step.state}`);
/** A queue whose first step's run goes on, with B and C waiting. */
const running = () => feed(queueOf('queue', ['A', 'B', 'C']), next, { type: 'launched', runId: 'r1' }).state;
/** The queue paused, by its budget spent in its first step. */
const spent = () =>
  feed(
    queueOf('queue', ['A', 'B'], { maxBudgetUsd: 0.01 }),
    next,
    { type: 'launched', runId: 'r1' },
    { type: 'step_ended', runId: 'r1', ending: completed(0.02) },
    next,
  ).state;

describe('the queue machine: waiting steps', () => {
  it('a message joins the waiting ones: one queue_changed, and the loop is woken', () => {
    const { state, commands } = feed(running(), {
      type: 'add',
      step: { id: 'q-4', mode: 'build', message: 'D' },
    });
    expect(commands).toEqual([
      {
        type: 'emit',
        event: {
          type: 'autopilot:queue_changed',
          ideaId,
          autopilotId: 'ap-1',
          pending: [
            { id: 's2', mode: 'chat', message: 'B' },
            { id: 's3', mode: 'chat', message: 'C' },
            { id: 'q-4', mode: 'build', message: 'D' },
          ],
        },
      },
      { type: 'wake' },
    ]);
    expect(messages(state)).toEqual(['A: running', 'B: pending', 'C: pending', 'D: pending']);
  });

  it(`refuses more than ${String(MAX_AUTOPILOT_STEPS)} waiting messages, changing nothing`, () => {
    let state = queueOf('queue', ['A']);
    for (let count = 1; count < MAX_AUTOPILOT_STEPS; count += 1) {
      state = feed(state, {
        type: 'add',
        step: { id: `q-${String(count)}`, mode: 'chat', message: 'M' },
      }).state;
    }
    const refused = handleQueue(state, { type: 'add', step: { id: 'q-last', mode: 'chat', message: 'Z' } });
    expect(refused).toEqual({
      state,
      commands: [
        { type: 'refuse', code: 'INVALID_ARGUMENT', message: 'A queue holds at most 50 waiting messages.' },
      ],
    });
  });

  it('edits a waiting step’s text and mode, and moves it among the waiting ones (a place past the end: last)', () => {
    const edited = feed(running(), {
      type: 'update',
      stepId: 's3',
      message: 'C2',
      mode: 'build',
      position: 0,
    });
    expect(messages(edited.state)).toEqual(['A: running', 'C2: pending', 'B: pending']);
    expect(edited.state.steps[1]?.mode).toBe('build');
    const last = feed(edited.state, { type: 'update', stepId: 's3', position: 9 });
    expect(pendings(last.commands)).toEqual([['B', 'C2']]);
  });

  it('a step whose run is starting is no longer a person’s: not edited, and first in every pending list', () => {
    const launching = feed(queueOf('queue', ['A', 'B']), next).state;
    expect(handleQueue(launching, { type: 'update', stepId: 's1', message: 'A2' }).commands).toEqual([
      {
        type: 'refuse',
        code: 'QUEUE_STEP_NOT_FOUND',
        message: 'No waiting message s1 in this idea’s queue (it may have been sent already).',
      },
    ]);
    const added = feed(
      launching,
      { type: 'add', step: { id: 'q-3', mode: 'chat', message: 'C' } },
      { type: 'update', stepId: 'q-3', position: 0 },
    );
    expect(pendings(added.commands)).toEqual([
      ['A', 'B', 'C'],
      ['A', 'C', 'B'],
    ]);
    expect(feed(added.state, { type: 'launched', runId: 'r1' }).state.steps[0]).toMatchObject({
      message: 'A',
      state: 'running',
    });
  });

  it('removes a waiting step; an unknown or running one is refused', () => {
    const removed = feed(running(), { type: 'remove', stepId: 's2' });
    expect(pendings(removed.commands)).toEqual([['C']]);
    expect(handleQueue(running(), { type: 'remove', stepId: 's1' }).commands[0]?.type).toBe('refuse');
    expect(handleQueue(running(), { type: 'remove', stepId: 'nope' }).commands[0]).toMatchObject({
      code: 'QUEUE_STEP_NOT_FOUND',
    });
  });

  it('a step stopped mid-way by its budget is not a waiting one: it goes on first, whatever is cleared', () => {
    const stopped = feed(
      queueOf('queue', ['A', 'B']),
      next,
      { type: 'launched', runId: 'r1' },
      {
        type: 'step_ended',
        runId: 'r1',
        ending: { outcome: 'failed', error: { code: 'BUDGET_EXCEEDED', message: 'Stopped.' } },
      },
    ).state;
    const cleared = feed(stopped, { type: 'clear' });
    expect(messages(cleared.state)).toEqual(['A: paused']);
    // Paused: cleared, nothing is left to go on with, and it ends.
    expect(cleared.state.isCancelled).toBe(true);
  });

  it('clearing a running queue leaves its running step alone, and it ends after it', () => {
    const cleared = feed(running(), { type: 'clear' });
    expect(pendings(cleared.commands)).toEqual([[]]);
    expect(cleared.state.isCancelled).toBe(false);
    const done = feed(cleared.state, { type: 'step_ended', runId: 'r1', ending: completed(0) }, next);
    expect(done.commands.at(-1)).toMatchObject({ type: 'end', event: { state: 'completed' } });
  });
});

describe('the queue machine: send now', () => {
  it('moves the step first and stops the run that holds the idea', () => {
    const { state, commands } = feed(running(), { type: 'send_now', stepId: 's3', busyRunId: 'r1' });
    expect(pendings(commands)).toEqual([['C', 'B']]);
    expect(commands).toContainEqual({ type: 'cancel_run', runId: 'r1' });
    expect(state.sendingNowRunId).toBe('r1');
  });

  it('with no run going, only moves it; a paused queue goes on (past its budget, for one step)', () => {
    const idle = feed(queueOf('queue', ['A', 'B']), { type: 'send_now', stepId: 's2', busyRunId: undefined });
    expect(idle.commands.map((command) => command.type)).toEqual(['emit', 'wake']);
    const paused = feed(spent(), { type: 'send_now', stepId: 's2', busyRunId: undefined });
    expect(eventsOf(paused.commands).at(-1)).toEqual({
      type: 'autopilot:resumed',
      ideaId,
      autopilotId: 'ap-1',
      oneMoreStep: true,
    });
    expect(feed(paused.state, next).commands[0]).toMatchObject({ type: 'launch', overrides: {} });
  });

  it('refuses a step that is not waiting', () => {
    expect(
      handleQueue(running(), { type: 'send_now', stepId: 's1', busyRunId: 'r1' }).commands,
    ).toMatchObject([{ type: 'refuse', code: 'QUEUE_STEP_NOT_FOUND' }]);
  });
});

describe('the queue machine: going on, budgets, cancel', () => {
  it('go on: nothing while it runs; refused while its own budget is spent, unless for one more step', () => {
    expect(feed(running(), { type: 'go_on', oneMoreStep: false }).commands).toEqual([]);
    expect(handleQueue(spent(), { type: 'go_on', oneMoreStep: false }).commands).toEqual([
      {
        type: 'refuse',
        code: 'BUDGET_EXCEEDED',
        message: 'It has spent $0.0200 of its $0.0100 budget; raise it, or run one more step, to go on.',
      },
    ]);
    const once = feed(spent(), { type: 'go_on', oneMoreStep: true });
    expect(once.state).toMatchObject({ paused: undefined, oneMoreStep: true });
    expect(once.commands.map((command) => command.type)).toEqual(['emit', 'wake']);
  });

  it('a budget raised past what was spent goes on; one still spent stays paused; none at all goes on', () => {
    const raised = feed(spent(), { type: 'set_budget', maxBudgetUsd: 1 });
    expect(eventsOf(raised.commands)).toEqual([
      { type: 'autopilot:budget_changed', ideaId, autopilotId: 'ap-1', maxBudgetUsd: 1 },
      { type: 'autopilot:resumed', ideaId, autopilotId: 'ap-1' },
    ]);
    expect(feed(spent(), { type: 'set_budget', maxBudgetUsd: 0.015 }).state.paused).toBe('budget');
    const removed = feed(spent(), { type: 'set_budget', maxBudgetUsd: null });
    expect(removed.state).toMatchObject({ paused: undefined, maxBudgetUsd: undefined });
  });

  it('the idea’s own budget raised lets a queue go on that its own budget does not hold', () => {
    const byIdea = feed(queueOf('queue', ['A']), next, {
      type: 'launch_failed',
      error: { code: 'BUDGET_EXCEEDED', message: 'The idea’s budget is spent.' },
      isIdeaBusy: false,
    }).state;
    expect(mayGoOnOnceIdeaBudgetAllows(byIdea)).toBe(true);
    expect(mayGoOnOnceIdeaBudgetAllows(spent())).toBe(false);
    expect(mayGoOnOnceIdeaBudgetAllows(running())).toBe(false);
    expect(feed(byIdea, { type: 'idea_budget_raised' }).state.paused).toBeUndefined();
    expect(feed(running(), { type: 'idea_budget_raised' }).commands).toEqual([]);
  });

  it('a cancel stops the step’s run and ends the queue cancelled, paused or not', () => {
    const cancelled = feed(running(), { type: 'cancel' });
    expect(cancelled.commands).toEqual([{ type: 'cancel_step_run' }, { type: 'wake' }]);
    expect(feed(spent(), { type: 'cancel' }, next).commands.at(-1)).toMatchObject({
      type: 'end',
      event: { state: 'cancelled', costUsd: 0.02 },
    });
  });

  it('Catalyst stopping for good ends it cancelled (its runs are cancelled by the stop); a restart leaves it as it is', () => {
    expect(feed(running(), { type: 'catalyst_stopping', keepRuns: false }).state.isCancelled).toBe(true);
    const kept = feed(running(), { type: 'catalyst_stopping', keepRuns: true });
    expect(kept.commands).toEqual([{ type: 'wake' }]);
    expect(kept.state).toEqual(running());
  });
});
