import type { AutopilotView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { QueuePanel } from './QueuePanel.tsx';

// The queue under the transcript (issue 30): each waiting message with what a person may do to it, and a paused
// queue's sentence with what lets it go on; every action is the API's, and the view it returns is shown.

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const IDEA_ID = 'idea-0123456789abcdef';

function viewOf(fields: Partial<AutopilotView> = {}): AutopilotView {
  return {
    id: 'ap-0123456789abcdef-1',
    ideaId: IDEA_ID,
    kind: 'queue',
    state: 'running',
    steps: [
      { id: 'q-run', mode: 'build', message: 'Running now.', state: 'running', runId: 'r1' },
      { id: 'q-1', mode: 'chat', message: 'First?', state: 'pending' },
      { id: 'q-2', mode: 'build', message: 'Second.', state: 'pending' },
    ],
    currentStep: 0,
    costUsd: 0.0123,
    questions: {
      questionsAsked: 0,
      questionsAnsweredAutomatically: 0,
      autoAnswerRetries: 0,
      auxiliaryCostUsd: 0,
    },
    questionPolicy: 'human',
    stopOnFailure: false,
    startedAt: '2026-11-26T10:00:00.000Z',
    ...fields,
  };
}

describe('QueuePanel', () => {
  it('lists what waits, in order, and moves, edits, sends now and removes through the API', async () => {
    const onChanged = vi.fn();
    const update = vi.spyOn(api, 'updateQueuedStep').mockResolvedValue(viewOf());
    const sendNow = vi.spyOn(api, 'sendQueuedStepNow').mockResolvedValue(viewOf());
    const remove = vi.spyOn(api, 'removeQueuedStep').mockResolvedValue(viewOf());
    render(<QueuePanel ideaId={IDEA_ID} view={viewOf()} onChanged={onChanged} />);
    expect(screen.getByRole('region', { name: /Queued messages/ }).textContent).toContain('(2 wait)');
    expect(screen.getAllByRole('listitem').map((item) => item.getAttribute('aria-label'))).toEqual([
      'Queued message 1',
      'Queued message 2',
    ]);
    expect(screen.getByRole('button', { name: 'Move queued message 1 up' })).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('button', { name: 'Move queued message 2 up' }));
    await waitFor(() => {
      expect(update).toHaveBeenCalledWith(IDEA_ID, 'q-2', { position: 0 });
    });
    fireEvent.click(screen.getByRole('button', { name: 'Edit queued message 1' }));
    fireEvent.change(screen.getByLabelText('Queued message 1'), { target: { value: 'First, edited?' } });
    fireEvent.change(screen.getByLabelText('Queued message 1: mode'), { target: { value: 'build' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(update).toHaveBeenCalledWith(IDEA_ID, 'q-1', { mode: 'build', message: 'First, edited?' });
    });
    const sendNowButton = screen.getByRole('button', { name: 'Send now: queued message 2' });
    await waitFor(() => {
      expect(sendNowButton).toHaveProperty('disabled', false);
    });
    fireEvent.click(sendNowButton);
    expect(sendNow).toHaveBeenCalledWith(IDEA_ID, 'q-2');
    const removeButton = screen.getByRole('button', { name: 'Remove queued message 1' });
    await waitFor(() => {
      expect(removeButton).toHaveProperty('disabled', false);
    });
    fireEvent.click(removeButton);
    expect(remove).toHaveBeenCalledWith(IDEA_ID, 'q-1');
    expect(onChanged).toHaveBeenCalled();
  });

  it('says why a queue is paused at its budget, and raises it or runs one more step', async () => {
    const raise = vi.spyOn(api, 'setQueueBudget').mockResolvedValue(viewOf());
    const resume = vi
      .spyOn(api, 'resumeQueue')
      .mockRejectedValue(new ApiError('BUDGET_EXCEEDED', 'It has spent its budget.', 409));
    const paused = viewOf({
      state: 'paused',
      maxBudgetUsd: 0.01,
      paused: {
        reason: 'budget',
        message: 'It has spent $0.0123 of its $0.0100 budget.',
        at: '2026-11-26T10:01:00.000Z',
      },
    });
    render(<QueuePanel ideaId={IDEA_ID} view={paused} onChanged={vi.fn()} />);
    expect(screen.getByRole('status').textContent).toBe(
      'Paused. It has spent $0.0123 of its $0.0100 budget.Budget ($)Raise and go onRun one more stepClear the queue',
    );
    fireEvent.change(screen.getByLabelText('Budget ($)'), { target: { value: '5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Raise and go on' }));
    await waitFor(() => {
      expect(raise).toHaveBeenCalledWith(IDEA_ID, 5);
    });
    const more = screen.getByRole('button', { name: 'Run one more step' });
    await waitFor(() => {
      expect(more).toHaveProperty('disabled', false);
    });
    fireEvent.click(more);
    expect((await screen.findByRole('alert')).textContent).toBe('It has spent its budget.');
    expect(resume).toHaveBeenCalledWith(IDEA_ID, true);
  });

  it('shows nothing once nothing waits and the queue is not paused', () => {
    const { container } = render(
      <QueuePanel
        ideaId={IDEA_ID}
        view={viewOf({ steps: [viewOf().steps[0] as AutopilotView['steps'][number]] })}
        onChanged={vi.fn()}
      />,
    );
    expect(container.innerHTML).toBe('');
  });
});
