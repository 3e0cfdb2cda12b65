import { describe, expect, it } from 'vitest';
import type { AutopilotView } from '@catalyst/protocol';
import { resumedQueue, type QueueInput } from './queue-machine.ts';
import type { RunEnding } from '../../runs/core/run-ending.ts';
import {
  completed,
  eventsOf,
  feed,
  ideaId,
  movesOf,
  next,
  queueOf,
  runStep,
} from '../../../test/support/queue-test-kit.ts';

// The queue machine and runs other than the one its step launched: the person's run a new queue began behind, a
// run "send now" stopped, the step's run an earlier Catalyst left going.

describe('the queue machine: the person’s run a new queue began behind', () => {
  const ended = (outcome: RunEnding['outcome']): QueueInput => ({
    type: 'run_before_ended',
    runId: 'p1',
    outcome,
  });

  it('goes on after it completed; pauses after it failed or was stopped', () => {
    expect(feed(queueOf('queue', ['A']), ended('completed')).commands).toEqual([]);
    expect(eventsOf(feed(queueOf('queue', ['A']), ended('failed')).commands)).toMatchObject([
      { reason: 'failed', message: 'The run before the queue ended failed; the queue waits.' },
    ]);
    expect(eventsOf(feed(queueOf('queue', ['A']), ended('cancelled')).commands)).toMatchObject([
      { reason: 'cancelled', message: 'You stopped the run before the queue; the queue waits.' },
    ]);
  });

  it('does not pause when “send now” stopped it, when the queue was cancelled, or when nothing waits', () => {
    const sentNow = feed(
      queueOf('queue', ['A']),
      { type: 'stop_run_before', runId: 'p1' },
      ended('cancelled'),
    );
    expect(sentNow.commands).toEqual([{ type: 'cancel_run', runId: 'p1' }]);
    expect(sentNow.state.sendingNowRunId).toBeUndefined();
    expect(feed(queueOf('queue', ['A']), { type: 'cancel' }, ended('failed')).state.paused).toBeUndefined();
    expect(feed(queueOf('queue', ['A']), { type: 'clear' }, ended('failed')).state.paused).toBeUndefined();
  });
});

describe('the queue machine: “send now”', () => {
  it('the run it stopped ends without pausing the queue, and the step sent now follows', () => {
    const running = feed(queueOf('queue', ['A', 'B', 'C']), next, { type: 'launched', runId: 'r1' }).state;
    const sent = feed(running, { type: 'send_now', stepId: 's3', busyRunId: 'r1' });
    expect(sent.commands).toContainEqual({ type: 'cancel_run', runId: 'r1' });
    const after = feed(
      sent.state,
      { type: 'step_ended', runId: 'r1', ending: { outcome: 'cancelled' } },
      next,
    );
    expect(after.state.paused).toBeUndefined();
    expect(movesOf(after.commands)).toMatchObject([{ type: 'launch', message: 'C' }]);
  });

  it('a stop it aimed at a run that ended by itself is forgotten: a later stop pauses the queue', () => {
    const running = feed(queueOf('queue', ['A', 'B', 'C']), next, { type: 'launched', runId: 'r1' }).state;
    const sent = feed(
      running,
      { type: 'send_now', stepId: 's3', busyRunId: 'r1' },
      { type: 'step_ended', runId: 'r1', ending: completed(0) },
    );
    expect(sent.state.sendingNowRunId).toBeUndefined();
    const stopped = runStep(sent.state, 'r2', { outcome: 'cancelled' });
    expect(stopped.state.paused).toBe('cancelled');
  });

  it('aimed at a person’s run the queue waited for, it is forgotten once that run has gone', () => {
    const waiting = feed(queueOf('queue', ['A', 'B']), { type: 'send_now', stepId: 's2', busyRunId: 'p1' });
    expect(waiting.state.sendingNowRunId).toBe('p1');
    const gone = feed(waiting.state, { type: 'busy_run_ended', runId: 'p1' });
    expect(gone.state.sendingNowRunId).toBeUndefined();
  });
});

describe('a queue an earlier Catalyst left', () => {
  const view: AutopilotView = {
    id: 'ap-1',
    ideaId,
    kind: 'autopilot',
    state: 'paused',
    steps: [
      {
        id: 's1',
        mode: 'chat',
        message: 'A',
        state: 'failed',
        runId: 'r1',
        error: { code: 'CLI_FAILED', message: 'It broke.' },
      },
      { id: 's2', mode: 'build', message: 'B', state: 'running', runId: 'r2' },
      { id: 's3', mode: 'chat', message: 'C', state: 'pending' },
    ],
    currentStep: 1,
    costUsd: 0.03,
    questions: {
      questionsAsked: 0,
      questionsAnsweredAutomatically: 0,
      autoAnswerRetries: 0,
      auxiliaryCostUsd: 0,
    },
    questionPolicy: 'auto',
    stopOnFailure: false,
    maxBudgetUsd: 0.1,
    paused: { reason: 'budget', message: 'Spent.', at: '2026-01-01T00:00:00.000Z' },
    startedAt: '2026-01-01T00:00:00.000Z',
  };

  it('goes on where it stood: its steps, cost, pause, the step it was in, and its first failure', () => {
    const { state, inStepRunId } = resumedQueue(ideaId, view);
    expect(inStepRunId).toBe('r2');
    expect(state).toMatchObject({
      kind: 'autopilot',
      questionPolicy: 'auto',
      costUsd: 0.03,
      maxBudgetUsd: 0.1,
      paused: 'budget',
      failure: { code: 'CLI_FAILED', message: 'Step 1 failed: It broke.' },
      isCancelled: false,
    });
    expect(state.steps.map((step) => step.state)).toEqual(['failed', 'running', 'pending']);
    const ended = feed(state, { type: 'step_ended', runId: 'r2', ending: completed(0.01) });
    expect(eventsOf(ended.commands)).toMatchObject([{ type: 'autopilot:step_ended', index: 1, runId: 'r2' }]);
    expect(ended.state.costUsd).toBeCloseTo(0.04);
  });

  it('a plain queue follows the idea’s policy and carries no failure', () => {
    const { state } = resumedQueue(ideaId, { ...view, kind: 'queue' });
    expect(state.questionPolicy).toBeUndefined();
    expect(state.failure).toBeUndefined();
  });
});
