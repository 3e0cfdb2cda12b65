import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ComponentProps } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Composer } from './Composer.tsx';

// The composer's own rules: Enter sends and Shift+Enter does not, nothing is sent while Claude works (and the
// page says why), the first Build asks first, and `/` offers the session's commands.

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

type Props = ComponentProps<typeof Composer>;

function renderComposer(overrides: Partial<Props> = {}) {
  const props: Props = {
    ideaId: 'idea-0123456789abcdef',
    connected: true,
    running: false,
    pending: false,
    accepted: 0,
    stopping: false,
    hasBuilt: false,
    hostName: 'vm',
    lastRun: undefined,
    newestSeq: 0,
    slashCommands: ['compact', 'context', 'cost', 'review'],
    waitingForPerson: false,
    onSend: vi.fn(),
    onCancel: vi.fn(),
    ...overrides,
  };
  const view = render(<Composer {...props} />);
  const rerender = (more: Partial<Props>) => {
    view.rerender(<Composer {...props} {...more} />);
  };
  return { props, rerender };
}

const box = () => screen.getByLabelText<HTMLTextAreaElement>('Message');

describe('Composer', () => {
  it('sends with Enter in the chosen mode, keeps Shift+Enter as a new line, clears once the run starts', () => {
    const { props, rerender } = renderComposer();
    fireEvent.change(box(), { target: { value: 'first line' } });
    fireEvent.keyDown(box(), { key: 'Enter', shiftKey: true });
    expect(props.onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('chat', 'first line');
    rerender({ pending: true });
    expect(box().disabled).toBe(true);
    expect(screen.getByText('Sending…')).toBeTruthy();
    expect(box().value).toBe('first line');
    rerender({ pending: false, accepted: 1 });
    expect(box().value).toBe('');
  });

  it('queues a message between a queue’s steps, and says so', () => {
    const { props } = renderComposer({ isAutopilotRunning: true });
    fireEvent.change(box(), { target: { value: 'me too' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('chat', 'me too');
    expect(screen.getByRole('button', { name: 'Queue' })).toBeTruthy();
    expect(screen.getByText(/Messages are queued: what you send now goes after them/)).toBeTruthy();
  });

  it('keeps the text when the message is refused', () => {
    const { props, rerender } = renderComposer();
    fireEvent.change(box(), { target: { value: 'keep me' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(props.onSend).toHaveBeenCalledOnce();
    rerender({ pending: true });
    rerender({ pending: false });
    expect(box().value).toBe('keep me');
    expect(box().disabled).toBe(false);
  });

  it('queues what is sent while a run is active, says so, and offers Cancel, then Stopping…', () => {
    const { props, rerender } = renderComposer({ running: true });
    expect(box().disabled).toBe(false);
    expect(screen.getByRole('button', { name: 'Queue' })).toHaveProperty('disabled', true);
    expect(screen.getByText(/Claude is working… what you send now waits in the queue/)).toBeTruthy();
    fireEvent.change(box(), { target: { value: 'next, please' } });
    fireEvent.click(screen.getByRole('button', { name: 'Queue' }));
    expect(props.onSend).toHaveBeenCalledWith('chat', 'next, please');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel run' }));
    expect(props.onCancel).toHaveBeenCalledOnce();
    rerender({ running: true, stopping: true });
    expect(screen.getByRole('button', { name: 'Stopping…' })).toHaveProperty('disabled', true);
    rerender({ running: false, stopping: false });
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
    expect(document.activeElement).toBe(box());
  });

  it('says why it cannot send while the connection is down', () => {
    renderComposer({ connected: false });
    expect(box().disabled).toBe(true);
    expect(screen.getByText(/Reconnecting… you can send again/)).toBeTruthy();
  });

  it('asks before the first Build of an idea, and remembers the answer', () => {
    const { props } = renderComposer();
    fireEvent.click(screen.getByRole('radio', { name: 'Build' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep chatting' }));
    expect(screen.getByRole('radio', { name: 'Chat' })).toHaveProperty('checked', true);

    fireEvent.click(screen.getByRole('radio', { name: 'Build' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start building' }));
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    fireEvent.change(box(), { target: { value: 'build it' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('build', 'build it');

    cleanup();
    renderComposer();
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    fireEvent.click(screen.getByRole('radio', { name: 'Chat' }));
    fireEvent.click(screen.getByRole('radio', { name: 'Build' }));
    expect(screen.queryByRole('button', { name: 'Start building' })).toBeNull();
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
  });

  it('does not ask when the idea was built before', () => {
    renderComposer({ hasBuilt: true });
    fireEvent.click(screen.getByRole('radio', { name: 'Build' }));
    expect(screen.queryByRole('button', { name: 'Start building' })).toBeNull();
  });

  it('opens in the mode of the idea’s last run, says so, and sends in it', () => {
    const { props } = renderComposer({ hasBuilt: true, lastRun: { mode: 'build', seq: 5 }, newestSeq: 9 });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    expect(screen.getByText('Opened in Build: this idea’s last run was a build.')).toBeTruthy();
    fireEvent.change(box(), { target: { value: 'go on' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('build', 'go on');
  });

  it('follows the idea’s last run as the replay arrives, until the person switches', () => {
    const { rerender } = renderComposer({ hasBuilt: true, connected: false });
    expect(screen.getByRole('radio', { name: 'Chat' })).toHaveProperty('checked', true);
    expect(screen.queryByText(/^Opened in/)).toBeNull();
    rerender({ hasBuilt: true, connected: false, lastRun: { mode: 'build', seq: 4 }, newestSeq: 6 });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    fireEvent.click(screen.getByRole('radio', { name: 'Chat' }));
    expect(screen.queryByText(/^Opened in/)).toBeNull();
    rerender({ hasBuilt: true, lastRun: { mode: 'build', seq: 8 }, newestSeq: 9 });
    expect(screen.getByRole('radio', { name: 'Chat' })).toHaveProperty('checked', true);
  });

  it('keeps its mode once the history is in: a queue’s or an autopilot’s chat run does not flip it (issue 40)', () => {
    const built = { hasBuilt: true, lastRun: { mode: 'build' as const, seq: 5 }, newestSeq: 7 };
    const { props, rerender } = renderComposer(built);
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    rerender({ ...built, lastRun: { mode: 'chat', seq: 9 }, newestSeq: 12 });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    expect(screen.queryByText(/^Opened in Chat/)).toBeNull();
    fireEvent.change(box(), { target: { value: 'go on' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('build', 'go on');
  });

  it('remembers a switch per idea across a reload, until a run starts after it', () => {
    const built = { hasBuilt: true, lastRun: { mode: 'build' as const, seq: 5 }, newestSeq: 7 };
    renderComposer(built);
    fireEvent.click(screen.getByRole('radio', { name: 'Chat' }));

    cleanup();
    const { props } = renderComposer(built);
    expect(screen.getByRole('radio', { name: 'Chat' })).toHaveProperty('checked', true);
    expect(screen.getByText('Opened in Chat, as you left it for this idea.')).toBeTruthy();
    fireEvent.change(box(), { target: { value: 'just asking' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('chat', 'just asking');

    cleanup();
    renderComposer({ ...built, ideaId: 'idea-fedcba9876543210' });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);

    // An autopilot (or another browser) built since: the idea's last run is newer than the switch.
    cleanup();
    renderComposer({ ...built, lastRun: { mode: 'build', seq: 8 }, newestSeq: 12 });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    expect(screen.getByText('Opened in Build: this idea’s last run was a build.')).toBeTruthy();
  });

  it('ignores a remembered mode it cannot read', () => {
    localStorage.setItem('catalyst.mode.idea-0123456789abcdef', '{"mode":"destroy"');
    renderComposer({ hasBuilt: true, lastRun: { mode: 'build', seq: 5 } });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
    localStorage.setItem('catalyst.mode.idea-0123456789abcdef', '{"mode":"destroy","afterSeq":9}');
    cleanup();
    renderComposer({ hasBuilt: true, lastRun: { mode: 'build', seq: 5 } });
    expect(screen.getByRole('radio', { name: 'Build' })).toHaveProperty('checked', true);
  });

  it('suggests the session’s slash commands and completes the chosen one', () => {
    const { props } = renderComposer();
    fireEvent.change(box(), { target: { value: '/co' } });
    const options = screen.getAllByRole('option').map((option) => option.textContent);
    expect(options).toEqual(['/compact', '/context', '/cost']);
    fireEvent.keyDown(box(), { key: 'ArrowDown' });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(box().value).toBe('/context ');
    expect(props.onSend).not.toHaveBeenCalled();
    expect(screen.queryByRole('listbox')).toBeNull();
  });
});
