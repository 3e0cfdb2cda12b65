import type { AutopilotView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { commandResult, IDEA_ID } from '../../test/support/transcript-fixtures.ts';
import { AutopilotPanel, AutopilotToggle } from './AutopilotPanel.tsx';
import type { AutopilotControl } from './use-autopilot.ts';

// The autopilot panel: steps composed, reordered and removed from the keyboard (the focus stays with the moved
// step), slash commands suggested, Start sends the checked body; a running autopilot shows each step's state, cost
// and time and offers Cancel; an ended one stays in sight above a new draft; an API error is a sentence.

afterEach(cleanup);
beforeAll(() => {
  // jsdom lays nothing out.
  Element.prototype.scrollIntoView = vi.fn();
});

function controlOf(fields: Partial<AutopilotControl> = {}): AutopilotControl {
  return {
    view: undefined,
    error: undefined,
    isBusy: false,
    isStopping: false,
    start: vi.fn(() => Promise.resolve(true)),
    cancel: vi.fn(),
    adopt: vi.fn(),
    dismissError: vi.fn(),
    ...fields,
  };
}

function renderPanel(control: AutopilotControl) {
  return render(
    <AutopilotPanel
      id="autopilot"
      isOpen
      control={control}
      slashCommands={['compact', 'context', 'plan-phase']}
    />,
  );
}

const message = (n: number) => screen.getByLabelText<HTMLTextAreaElement>(`Step ${n} message`);
const outcome = () => document.querySelector('.ap-outcome')?.textContent;
const button = (name: string) => screen.getByRole('button', { name });

function viewOf(state: AutopilotView['state'], steps: AutopilotView['steps']): AutopilotView {
  return {
    id: 'ap-0123456789abcdef-1',
    ideaId: IDEA_ID,
    kind: 'autopilot',
    state,
    steps,
    currentStep: 1,
    costUsd: 0.0123,
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
}

describe('AutopilotPanel', () => {
  it('composes steps, moves and removes them from the keyboard, and starts with the checked body', () => {
    const control = controlOf();
    renderPanel(control);
    fireEvent.change(message(1), { target: { value: 'Plan it.' } });
    fireEvent.click(button('Add step'));
    expect(document.activeElement, 'a new step`s message has the focus').toBe(message(2));
    fireEvent.change(message(2), { target: { value: 'Build it.' } });
    fireEvent.change(screen.getByLabelText('Step 2 mode'), { target: { value: 'build' } });
    fireEvent.click(button('Add step'));
    fireEvent.change(message(3), { target: { value: 'Check it.' } });

    button('Move step 2 up').focus();
    fireEvent.click(button('Move step 2 up'));
    expect(message(1).value).toBe('Build it.');
    // It is first now: its "up" is disabled, so the focus is on its "down".
    expect(button('Move step 1 up')).toHaveProperty('disabled', true);
    expect(document.activeElement).toBe(button('Move step 1 down'));
    fireEvent.click(button('Move step 1 down'));
    expect(document.activeElement).toBe(button('Move step 2 down'));
    fireEvent.click(button('Remove step 3'));
    expect(document.activeElement).toBe(button('Add step'));

    fireEvent.change(screen.getByLabelText('Questions'), { target: { value: 'human_then_auto' } });
    fireEvent.change(screen.getByLabelText('Max budget (USD)'), { target: { value: '1.5' } });
    fireEvent.click(button('Start autopilot'));
    expect(control.start).toHaveBeenCalledWith({
      steps: [
        { mode: 'chat', message: 'Plan it.' },
        { mode: 'build', message: 'Build it.' },
      ],
      questionPolicy: 'human_then_auto',
      stopOnFailure: true,
      maxBudgetUsd: 1.5,
    });
  });

  it('says what is missing instead of starting', () => {
    const control = controlOf();
    renderPanel(control);
    fireEvent.click(button('Start autopilot'));
    expect(screen.getByRole('alert').textContent).toBe('Step 1 has no message yet.');
    expect(control.start).not.toHaveBeenCalled();
  });

  it('suggests the session’s slash commands in a step', () => {
    renderPanel(controlOf());
    fireEvent.change(message(1), { target: { value: '/pl' } });
    const options = within(screen.getByRole('listbox', { name: 'Commands' })).getAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['/plan-phase']);
    fireEvent.keyDown(message(1), { key: 'Enter' });
    expect(message(1).value).toBe('/plan-phase ');
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('shows a running autopilot step by step, with cost and time, and cancels it', () => {
    const result = commandResult({ durationMs: 4200, numTurns: 1, costUsd: 0.0123 });
    const view = viewOf('running', [
      { id: 's3', mode: 'chat', message: 'Plan it.', state: 'completed', runId: 'r1', result },
      { id: 's4', mode: 'build', message: 'Build it.', state: 'running', runId: 'r2' },
      { id: 's5', mode: 'chat', message: 'Check it.', state: 'pending' },
    ]);
    const control = controlOf({ view });
    const { rerender } = renderPanel(control);
    const steps = within(screen.getByRole('list', { name: 'Autopilot steps' })).getAllByRole('listitem');
    expect(steps.map((step) => step.textContent)).toEqual([
      'Chat Completed · $0.0123 · 4.2 sPlan it.',
      'Build RunningBuild it.',
      'Chat PendingCheck it.',
    ]);
    expect(outcome()).toBe('Autopilot: Running · step 2 of 3 · $0.0123');
    expect(screen.queryByRole('form', { name: 'New autopilot' }), 'no new one while it runs').toBeNull();
    fireEvent.click(button('Cancel autopilot'));
    expect(control.cancel).toHaveBeenCalledOnce();
    rerender(
      <AutopilotPanel id="autopilot" isOpen control={{ ...control, isStopping: true }} slashCommands={[]} />,
    );
    expect(button('Stopping…')).toHaveProperty('disabled', true);
  });

  it('keeps the last outcome in sight above a new draft, and shows an API error as its sentence', () => {
    const view = viewOf('cancelled', [
      { id: 's6', mode: 'build', message: 'Wait.', state: 'cancelled', runId: 'r1' },
      { id: 's7', mode: 'chat', message: 'Never runs.', state: 'skipped' },
    ]);
    const error = 'This idea is busy: a run is going on. Wait for it to end, or cancel it.';
    const control = controlOf({ view, error });
    renderPanel(control);
    expect(outcome()).toBe('Last autopilot: Cancelled · 2 steps · $0.0123');
    const steps = within(screen.getByRole('list', { name: 'Autopilot steps' })).getAllByRole('listitem');
    expect(steps.map((step) => step.querySelector('.ap-step-state')?.textContent)).toEqual([
      'Cancelled',
      'Skipped',
    ]);
    expect(screen.getByRole('form', { name: 'New autopilot' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe(`${error} Dismiss`);
    fireEvent.click(button('Dismiss'));
    expect(control.dismissError).toHaveBeenCalledOnce();
  });
});

describe('AutopilotToggle', () => {
  it('opens the panel and says which step runs', () => {
    const onToggle = vi.fn();
    const view = viewOf('running', [
      { id: 's8', mode: 'chat', message: 'Plan it.', state: 'completed' },
      { id: 's9', mode: 'chat', message: 'Go on.', state: 'running' },
    ]);
    render(
      <AutopilotToggle
        panelId="autopilot"
        isOpen={false}
        control={controlOf({ view })}
        onToggle={onToggle}
      />,
    );
    const toggle = button('Autopilot');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.getAttribute('aria-controls')).toBe('autopilot');
    fireEvent.click(toggle);
    expect(onToggle).toHaveBeenCalledOnce();
    expect(screen.getByText('step 2 of 2')).toBeTruthy();
  });

  it('names a queue a queue: beside the toggle, in its progress and its Cancel (issue 40)', () => {
    const view: AutopilotView = {
      ...viewOf('running', [
        { id: 's8', mode: 'build', message: 'First?', state: 'completed' },
        { id: 's9', mode: 'build', message: 'Second?', state: 'running' },
      ]),
      kind: 'queue',
    };
    const control = controlOf({ view });
    render(<AutopilotToggle panelId="autopilot" isOpen control={control} onToggle={vi.fn()} />);
    expect(screen.getByText('Queue · step 2 of 2')).toBeTruthy();
    cleanup();
    renderPanel(control);
    expect(outcome()).toMatch(/^Queue: Running · step 2 of 2/);
    expect(screen.getByRole('list', { name: 'Queue steps' })).toBeTruthy();
    fireEvent.click(button('Cancel queue'));
    expect(control.cancel).toHaveBeenCalledOnce();
  });
});
