import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { autopilotViewsOf } from './autopilot-views.ts';

const ideaId = 'idea-0123456789abcdef';
let seq = 0;
const at = (type: RelayEvent['type'], fields: Record<string, unknown>): RelayEvent =>
  ({
    ideaId,
    seq: ++seq,
    ts: `2026-11-25T10:00:${String(seq).padStart(2, '0')}.000Z`,
    type,
    ...fields,
  }) as RelayEvent;
const result = (costUsd: number) => ({
  success: true,
  subtype: 'success',
  sessionId: 's',
  durationMs: 5,
  durationApiMs: 4,
  numTurns: 1,
  costUsd,
});

describe('autopilotViewsOf', () => {
  it('folds the steps, their runs and costs; steps never reached are skipped once it ends', () => {
    const autopilotId = 'ap-1';
    const [view] = autopilotViewsOf([
      at('autopilot:started', {
        autopilotId,
        steps: [
          { mode: 'chat', message: 'a' },
          { mode: 'build', message: 'b' },
          { mode: 'chat', message: 'c' },
        ],
        questionPolicy: 'auto',
        stopOnFailure: true,
      }),
      at('autopilot:step_started', { autopilotId, index: 0, runId: 'r1' }),
      at('run:started', { runId: 'r1', mode: 'chat', message: 'a' }),
      at('autopilot:step_ended', {
        autopilotId,
        index: 0,
        runId: 'r1',
        state: 'completed',
        result: result(0.5),
        questions: {
          questionsAsked: 2,
          questionsAnsweredAutomatically: 1,
          autoAnswerRetries: 1,
          auxiliaryCostUsd: 0.01,
        },
      }),
      at('autopilot:step_started', { autopilotId, index: 1, runId: 'r2' }),
      at('autopilot:step_ended', {
        autopilotId,
        index: 1,
        runId: 'r2',
        state: 'failed',
        result: result(0.25),
        error: { code: 'CLI_FAILED', message: 'no' },
      }),
      at('autopilot:ended', {
        autopilotId,
        state: 'failed',
        costUsd: 0.75,
        error: { code: 'CLI_FAILED', message: 'Step 2 failed: no' },
      }),
      at('autopilot:ended', { autopilotId, state: 'completed', costUsd: 0 }),
    ]);
    expect(view).toMatchObject({
      id: autopilotId,
      state: 'failed',
      currentStep: 1,
      costUsd: 0.75,
      questions: {
        questionsAsked: 2,
        questionsAnsweredAutomatically: 1,
        autoAnswerRetries: 1,
        auxiliaryCostUsd: 0.01,
      },
      error: { message: 'Step 2 failed: no' },
      endedAt: '2026-11-25T10:00:07.000Z',
    });
    expect(view?.steps.map((step) => [step.state, step.runId])).toEqual([
      ['completed', 'r1'],
      ['failed', 'r2'],
      ['skipped', undefined],
    ]);
  });
});

describe('autopilotViewsOf: a queue (issue 30)', () => {
  it('replaces the waiting steps on each change, keeps a step stopped at its budget in place, and folds a pause', () => {
    const autopilotId = 'ap-q';
    const [view] = autopilotViewsOf([
      at('autopilot:started', {
        autopilotId,
        kind: 'queue',
        steps: [{ id: 'q-a', mode: 'build', message: 'a' }],
        questionPolicy: 'human',
        stopOnFailure: false,
      }),
      at('autopilot:step_started', { autopilotId, index: 0, runId: 'r1' }),
      at('autopilot:queue_changed', {
        autopilotId,
        pending: [
          { id: 'q-c', mode: 'chat', message: 'c' },
          { id: 'q-b', mode: 'chat', message: 'b' },
        ],
      }),
      at('autopilot:step_ended', {
        autopilotId,
        index: 0,
        runId: 'r1',
        state: 'paused',
        result: result(0.25),
      }),
      at('autopilot:paused', { autopilotId, reason: 'budget', message: 'Step 1 stopped at its budget.' }),
      // A change while paused leaves the stopped step first: it goes on before the rest.
      at('autopilot:queue_changed', {
        autopilotId,
        pending: [{ id: 'q-b', mode: 'chat', message: 'b, edited' }],
      }),
      at('autopilot:budget_changed', { autopilotId, maxBudgetUsd: 2 }),
    ]);
    expect(view).toMatchObject({
      kind: 'queue',
      state: 'paused',
      paused: { reason: 'budget', message: 'Step 1 stopped at its budget.' },
      maxBudgetUsd: 2,
      costUsd: 0.25,
    });
    expect(view?.steps.map((step) => [step.id, step.message, step.state, step.runId])).toEqual([
      ['q-a', 'a', 'paused', 'r1'],
      ['q-b', 'b, edited', 'pending', undefined],
    ]);
    const [resumed] = autopilotViewsOf([
      at('autopilot:started', {
        autopilotId,
        steps: [{ mode: 'chat', message: 'x' }],
        questionPolicy: 'auto',
        stopOnFailure: true,
      }),
      at('autopilot:paused', { autopilotId, reason: 'budget', message: 'm' }),
      at('autopilot:resumed', { autopilotId }),
    ]);
    // Steps of an autopilot from before ids are named by their place.
    expect(resumed).toMatchObject({ kind: 'autopilot', state: 'running', steps: [{ id: 'step-1' }] });
    expect(resumed?.paused).toBeUndefined();
  });
});
