import type { AsideView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDEA_ID } from '../../test/support/transcript-fixtures.ts';
import { AsidePanel } from './AsidePanel.tsx';
import type { AsidesControl } from './use-asides.ts';

// The asides' panel: asked with Ctrl+Enter (the model only when one is named), closed with Escape, refused before
// the idea's first run and with three waiting; each aside's answer, cost and time, or why it failed.

afterEach(cleanup);

// jsdom lays nothing out, nor scrolls: the panel brings its form into sight when it opens.
const scrolled = vi.fn();
Element.prototype.scrollIntoView = scrolled;

const asked = { ideaId: IDEA_ID, model: 'claude-haiku-4-5', askedAt: '2026-01-01T00:00:00.000Z' };

function controlOf(fields: Partial<AsidesControl> = {}): AsidesControl {
  return {
    views: [],
    goingCount: 0,
    isAsking: false,
    error: undefined,
    ask: vi.fn(() => Promise.resolve(true)),
    dismissError: vi.fn(),
    ...fields,
  };
}

function renderPanel(control: AsidesControl, options: { hasSession?: boolean; onClose?: () => void } = {}) {
  return render(
    <AsidePanel
      id="asides"
      isOpen
      control={control}
      hasSession={options.hasSession ?? true}
      onClose={options.onClose ?? vi.fn()}
    />,
  );
}

describe('the asides panel', () => {
  it('asks with Ctrl+Enter, naming a model only when one is typed, and closes with Escape', () => {
    const control = controlOf();
    const onClose = vi.fn();
    renderPanel(control, { onClose });
    const question = screen.getByLabelText('Question aside');
    expect(document.activeElement).toBe(question);
    fireEvent.change(question, { target: { value: 'Why SQLite?' } });
    fireEvent.keyDown(question, { key: 'Enter', ctrlKey: true });
    expect(control.ask).toHaveBeenLastCalledWith({ question: 'Why SQLite?' });
    fireEvent.change(screen.getByLabelText('Model'), { target: { value: ' claude-sonnet-4-5 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Ask aside' }));
    expect(control.ask).toHaveBeenLastCalledWith({ question: 'Why SQLite?', model: 'claude-sonnet-4-5' });
    fireEvent.keyDown(question, { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });

  it('opens in sight; Enter asks, Shift+Enter starts a new line, as in the message box (issue 40)', () => {
    const control = controlOf();
    renderPanel(control);
    expect(scrolled).toHaveBeenCalledWith({ block: 'nearest' });
    const question = screen.getByLabelText('Question aside');
    expect(document.activeElement).toBe(question);
    fireEvent.change(question, { target: { value: 'Why' } });
    expect(fireEvent.keyDown(question, { key: 'Enter', shiftKey: true })).toBe(true);
    expect(control.ask).not.toHaveBeenCalled();
    fireEvent.change(question, { target: { value: 'Why\nSQLite?' } });
    expect(fireEvent.keyDown(question, { key: 'Enter' })).toBe(false);
    expect(control.ask).toHaveBeenLastCalledWith({ question: 'Why\nSQLite?' });
  });

  it('cannot ask before the idea has a session, nor with three asides waiting, and says why', () => {
    const going: AsideView[] = ['One?', 'Two?', 'Three?'].map((question, index) => ({
      ...asked,
      id: `a${String(index)}`,
      question,
      state: 'asking',
    }));
    renderPanel(controlOf(), { hasSession: false });
    fireEvent.change(screen.getByLabelText('Question aside'), { target: { value: 'Why?' } });
    expect(screen.getByRole('button', { name: 'Ask aside' })).toHaveProperty('disabled', true);
    expect(screen.getByText(/send a first message before asking one/)).toBeTruthy();
    cleanup();
    renderPanel(controlOf({ views: going, goingCount: 3 }));
    fireEvent.change(screen.getByLabelText('Question aside'), { target: { value: 'Four?' } });
    expect(screen.getByRole('button', { name: 'Ask aside' })).toHaveProperty('disabled', true);
    expect(screen.getByText(/3 asides wait for an answer already/)).toBeTruthy();
  });

  it('shows each aside: the answer as markdown with its cost and time, or the failure', () => {
    const views: AsideView[] = [
      {
        ...asked,
        id: 'a1',
        question: 'Why?',
        state: 'answered',
        answer: 'Because **simple**.',
        costUsd: 0.0123,
        durationMs: 2100,
      },
      {
        ...asked,
        id: 'a2',
        question: 'Gone?',
        state: 'failed',
        error: { code: 'CLI_FAILED', message: 'No conversation found.' },
      },
    ];
    renderPanel(controlOf({ views }));
    const items = screen.getByRole('list', { name: 'Asides asked' }).querySelectorAll('li');
    expect(items[0]?.querySelector('strong')?.textContent).toBe('simple');
    expect(items[0]?.textContent).toContain('claude-haiku-4-5 · $0.0123 · 2.1 s');
    expect(items[1]?.textContent).toContain('No answer: No conversation found.');
  });
});
