import type { RelayEvent } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { relayEvent, started } from '../../test/support/transcript-fixtures.ts';
import { carriesMessage, findBudgetStop, isAutopilotRunning, stepIdsUpTo } from './idea-events.ts';

// What the idea's page reads from its history besides the transcript: whether the newest run was a person's run
// stopped at the idea's budget, whether a queue runs, and whether a message sent went out (started or queued).

const AP = 'ap-0123456789abcdef-1';
const budgetEnd = (seq: number, runId: string) =>
  relayEvent(seq, {
    type: 'run:ended',
    runId,
    outcome: 'failed',
    error: { code: 'BUDGET_EXCEEDED', message: 'The idea reached its budget.' },
  });
const queued = (seq: number, pending: { id: string; message: string }[]) =>
  relayEvent(seq, {
    type: 'autopilot:queue_changed',
    autopilotId: AP,
    pending: pending.map((step) => ({ ...step, mode: 'build' as const })),
  });
const apStarted = (seq: number) =>
  relayEvent(seq, {
    type: 'autopilot:started',
    autopilotId: AP,
    kind: 'queue',
    steps: [{ id: 'q1', mode: 'build', message: 'Add tags.' }],
    questionPolicy: 'human',
    stopOnFailure: true,
  });

describe('findBudgetStop', () => {
  it('names a person`s run the CLI stopped at the budget, with its mode', () => {
    expect(findBudgetStop([started(1, 'r1', 'Build it.', 'build'), budgetEnd(2, 'r1')])).toEqual({
      runId: 'r1',
      mode: 'build',
    });
  });

  it('is silent for a queue`s step (the queue pauses instead), a later run, or another failure', () => {
    const step = relayEvent(2, { type: 'autopilot:step_started', autopilotId: AP, index: 0, runId: 'r1' });
    expect(
      findBudgetStop([apStarted(1), step, started(3, 'r1', 'Add tags.', 'build'), budgetEnd(4, 'r1')]),
    ).toBe(undefined);
    const later = relayEvent(4, { type: 'run:ended', runId: 'r2', outcome: 'completed' });
    expect(
      findBudgetStop([started(1, 'r1', 'A', 'build'), budgetEnd(2, 'r1'), started(3, 'r2', 'B'), later]),
    ).toBe(undefined);
    const failed = relayEvent(2, {
      type: 'run:ended',
      runId: 'r1',
      outcome: 'failed',
      error: { code: 'CLI_FAILED', message: 'It failed.' },
    });
    expect(findBudgetStop([started(1, 'r1', 'A'), failed])).toBe(undefined);
  });
});

describe('carriesMessage and stepIdsUpTo', () => {
  it('takes a run that started with the message, or a new last step of the queue with it', () => {
    const events: RelayEvent[] = [apStarted(1), queued(2, [{ id: 'q1', message: 'Add tags.' }])];
    const known = stepIdsUpTo(events, 2);
    expect([...known]).toEqual(['q1']);
    expect(carriesMessage(started(3, 'r1', 'Hello.'), 'Hello.', known)).toBe(true);
    expect(carriesMessage(started(3, 'r1', 'Other.'), 'Hello.', known)).toBe(false);
    const added = queued(3, [
      { id: 'q1', message: 'Add tags.' },
      { id: 'q2', message: 'Add tags.' },
    ]);
    expect(carriesMessage(added, 'Add tags.', known)).toBe(true);
  });

  it('does not take a step that was there before the send (moved or edited) for the message sent', () => {
    const events: RelayEvent[] = [
      apStarted(1),
      queued(2, [
        { id: 'q1', message: 'Add tags.' },
        { id: 'q2', message: 'Fix it.' },
      ]),
    ];
    const known = stepIdsUpTo(events, 2);
    const moved = queued(3, [
      { id: 'q2', message: 'Fix it.' },
      { id: 'q1', message: 'Add tags.' },
    ]);
    expect(carriesMessage(moved, 'Add tags.', known)).toBe(false);
    expect([...stepIdsUpTo([...events, moved], 1)]).toEqual(['q1']);
  });
});

describe('isAutopilotRunning', () => {
  it('follows the queue`s newest start, pause, resume or end', () => {
    const paused = relayEvent(2, {
      type: 'autopilot:paused',
      autopilotId: AP,
      reason: 'budget',
      message: 'Paused at its budget.',
    });
    const resumed = relayEvent(3, { type: 'autopilot:resumed', autopilotId: AP });
    expect(isAutopilotRunning([])).toBe(false);
    expect(isAutopilotRunning([apStarted(1)])).toBe(true);
    expect(isAutopilotRunning([apStarted(1), paused])).toBe(false);
    expect(isAutopilotRunning([apStarted(1), paused, resumed])).toBe(true);
    const ended = relayEvent(4, { type: 'autopilot:ended', autopilotId: AP, state: 'completed', costUsd: 0 });
    expect(isAutopilotRunning([apStarted(1), paused, resumed, ended])).toBe(false);
  });
});
