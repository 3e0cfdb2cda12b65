import type { AutopilotView, RelayEvent } from '@catalyst/protocol';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { IDEA_ID, relayEvent, started } from '../../test/support/transcript-fixtures.ts';
import { findLastAutopilotSeq, useAutopilot } from './use-autopilot.ts';

// The panel's view of the idea's autopilot comes from the server: fetched once the stream is live and again on
// every autopilot event, never for an idea that had none (a 404 would be a console error); start and cancel show
// the view they return, and their refusals as the server's sentence.

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const VIEW: AutopilotView = {
  id: 'ap-0123456789abcdef-1',
  ideaId: IDEA_ID,
  kind: 'autopilot',
  state: 'running',
  steps: [{ id: 's1', mode: 'chat', message: 'Plan it.', state: 'running', runId: 'r1' }],
  currentStep: 0,
  costUsd: 0,
  questions: {
    questionsAsked: 0,
    questionsAnsweredAutomatically: 0,
    autoAnswerRetries: 0,
    auxiliaryCostUsd: 0,
  },
  questionPolicy: 'auto',
  stopOnFailure: true,
  startedAt: '2025-01-01T12:00:00.000Z',
};

const apStarted = (seq: number) =>
  relayEvent(seq, {
    type: 'autopilot:started',
    autopilotId: VIEW.id,
    steps: [{ id: 's2', mode: 'chat', message: 'Plan it.' }],
    questionPolicy: 'auto',
    stopOnFailure: true,
  });

function renderAutopilot(events: readonly RelayEvent[], isLive = true) {
  return renderHook(
    (props: { events: readonly RelayEvent[]; isLive: boolean }) =>
      useAutopilot(IDEA_ID, props.events, props.isLive),
    { initialProps: { events, isLive } },
  );
}

describe('useAutopilot', () => {
  it('finds the newest autopilot event', () => {
    expect(findLastAutopilotSeq([started(1, 'r1', 'Hi')])).toBeUndefined();
    expect(findLastAutopilotSeq([apStarted(1), started(2, 'r1', 'Plan it.')])).toBe(1);
  });

  it('asks nothing for an idea that never had an autopilot; fetches once live, and on each autopilot event', async () => {
    const latest = vi.spyOn(api, 'latestAutopilot').mockResolvedValue(VIEW);
    const { result, rerender } = renderAutopilot([started(1, 'r1', 'Hi')]);
    expect(latest).not.toHaveBeenCalled();
    rerender({ events: [started(1, 'r1', 'Hi'), apStarted(2)], isLive: false });
    expect(latest, 'not during a replay').not.toHaveBeenCalled();
    rerender({ events: [started(1, 'r1', 'Hi'), apStarted(2)], isLive: true });
    await waitFor(() => {
      expect(result.current.view).toEqual(VIEW);
    });
    rerender({ events: [started(1, 'r1', 'Hi'), apStarted(2), started(3, 'r2', 'Plan it.')], isLive: true });
    expect(latest).toHaveBeenCalledOnce();
    const stepStarted = relayEvent(4, {
      type: 'autopilot:step_started',
      autopilotId: VIEW.id,
      index: 0,
      runId: 'r2',
    });
    rerender({ events: [apStarted(2), started(3, 'r2', 'Plan it.'), stepStarted], isLive: true });
    await waitFor(() => {
      expect(latest).toHaveBeenCalledTimes(2);
    });
  });

  it('starts, shows a refusal as its sentence, and stops', async () => {
    const refusal = 'The idea has a run going: wait for it to end.';
    vi.spyOn(api, 'startAutopilot').mockRejectedValueOnce(new ApiError('RUN_IN_PROGRESS', refusal, 409));
    const { result } = renderAutopilot([]);
    const body = {
      steps: [{ id: 's3', mode: 'chat' as const, message: 'Plan it.' }],
      questionPolicy: 'auto' as const,
      stopOnFailure: true,
    };
    let isStarted: boolean | undefined;
    await act(async () => {
      isStarted = await result.current.start(body);
    });
    expect(isStarted).toBe(false);
    expect(result.current.error).toBe(refusal);

    vi.spyOn(api, 'startAutopilot').mockResolvedValueOnce(VIEW);
    await act(async () => {
      isStarted = await result.current.start(body);
    });
    expect(isStarted).toBe(true);
    expect(result.current).toMatchObject({ view: VIEW, error: undefined, isBusy: false });

    const cancel = vi.spyOn(api, 'cancelAutopilot').mockResolvedValue(VIEW);
    act(() => {
      result.current.cancel();
    });
    expect(cancel).toHaveBeenCalledWith(VIEW.id);
    await waitFor(() => {
      expect(result.current.isStopping).toBe(true);
    });
  });
});
