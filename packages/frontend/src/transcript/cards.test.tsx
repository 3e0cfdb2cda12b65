import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AskUserQuestionItem, QuestionClosedReason } from '@catalyst/protocol';
import { Transcript, type TranscriptActions } from './Transcript.tsx';
import { relayEvent, started, text, toolResult, toolUse } from '../../test/support/transcript-fixtures.ts';
import { applyFrames, emptyTranscript, type TranscriptFrame } from './transcript-state.ts';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function renderFrames(frames: TranscriptFrame[]) {
  const actions = {
    answer: vi.fn(() => true),
    dismiss: vi.fn(() => true),
    permission: vi.fn(() => true),
  } satisfies TranscriptActions;
  let state = applyFrames(emptyTranscript, frames);
  const view = render(<Transcript state={state} actions={actions} />);
  const push = (...more: TranscriptFrame[]) => {
    state = applyFrames(state, more);
    view.rerender(<Transcript state={state} actions={actions} />);
  };
  return { actions, push };
}

const colour: AskUserQuestionItem = {
  question: 'Which colour scheme?',
  header: 'Colours',
  multiSelect: false,
  options: [
    { label: 'Dark', description: 'Easy on the eyes at night' },
    { label: 'Light', description: 'Crisp in daylight' },
  ],
};
const features: AskUserQuestionItem = {
  question: 'Which features?',
  header: 'Features',
  multiSelect: true,
  options: [
    { label: 'Search', description: '' },
    { label: 'Export', description: 'CSV and JSON' },
    { label: 'Sharing', description: '' },
  ],
};

const ask = (seq: number, questions: AskUserQuestionItem[], questionId = 'q-1') =>
  relayEvent(seq, {
    type: 'claude:question',
    runId: 'run-1',
    questionId,
    questions,
    askedAt: '2025-01-01T12:00:00.000Z',
  });

/** The server's word that q-1 was answered: by a person, or automatically by the model named. */
const answered = (seq: number, answers: Record<string, string>, by = 'person') =>
  relayEvent(seq, {
    type: 'claude:question_answered',
    runId: 'run-1',
    questionId: 'q-1',
    answers,
    source: by === 'person' ? 'human' : 'auto',
    by,
  });

const questionClosed = (seq: number, reason: QuestionClosedReason) =>
  relayEvent(seq, { type: 'claude:question_closed', runId: 'run-1', questionId: 'q-1', reason });

const submit = () => {
  fireEvent.click(screen.getByRole('button', { name: 'Submit answer' }));
};

describe('QuestionCard', () => {
  it('answers with the chosen option label, then waits disabled for the server', () => {
    const { actions } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour])]);
    const form = screen.getByRole('region', { name: 'Question: Colours' });
    const group = within(form).getByRole('group', { name: 'Which colour scheme?' });
    expect(within(group).getByText('Easy on the eyes at night')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Submit answer' })).toHaveProperty('disabled', true);

    fireEvent.click(within(group).getByRole('radio', { name: 'Light' }));
    submit();
    expect(actions.answer).toHaveBeenCalledExactlyOnceWith('q-1', { 'Which colour scheme?': 'Light' });
    expect(within(group).getByRole('radio', { name: 'Dark' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Submit answer' })).toHaveProperty('disabled', true);
  });

  it('comes back after a while when the server never confirms (the frame may have been lost)', () => {
    vi.useFakeTimers();
    renderFrames([started(1, 'run-1', 'go'), ask(2, [colour])]);
    fireEvent.click(screen.getByRole('radio', { name: 'Dark' }));
    submit();
    expect(screen.getByRole('radio', { name: 'Dark' })).toHaveProperty('disabled', true);
    act(() => {
      vi.advanceTimersByTime(20_000);
    });
    expect(screen.getByRole('radio', { name: 'Dark' })).toHaveProperty('disabled', false);
  });

  it('gives an array of labels for multiSelect, with the Other text as one more entry', () => {
    const { actions } = renderFrames([started(1, 'run-1', 'go'), ask(2, [features])]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Sharing' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Search' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Other answer' }), {
      target: { value: ' Printing ' },
    });
    expect(screen.getByRole('checkbox', { name: 'Other' })).toHaveProperty('checked', true);
    submit();
    expect(actions.answer).toHaveBeenCalledExactlyOnceWith('q-1', {
      'Which features?': ['Search', 'Sharing', 'Printing'],
    });
  });

  it('answers a single-choice question with the Other text, and needs every question answered', () => {
    const { actions } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour, features])]);
    const colours = screen.getByRole('group', { name: 'Which colour scheme?' });
    fireEvent.click(within(colours).getByRole('radio', { name: 'Dark' }));
    fireEvent.change(within(colours).getByRole('textbox', { name: 'Other answer' }), {
      target: { value: 'Solarized' },
    });
    expect(within(colours).getByRole('radio', { name: 'Dark' })).toHaveProperty('checked', false);
    expect(screen.getByRole('button', { name: 'Submit answer' })).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Export' }));
    submit();
    expect(actions.answer).toHaveBeenCalledExactlyOnceWith('q-1', {
      'Which colour scheme?': 'Solarized',
      'Which features?': ['Export'],
    });
  });

  it('shows an automatic answer and disables the card', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      ask(2, [colour]),
      answered(3, { 'Which colour scheme?': 'Dark' }, 'claude-haiku-4-5'),
      questionClosed(4, 'answered'),
    ]);
    const card = screen.getByRole('region', { name: 'Question: Colours' });
    expect(card.textContent).toContain('Answered automatically (claude-haiku-4-5)');
    expect(within(card).getByRole('term').textContent).toBe('Which colour scheme?');
    expect(within(card).getByRole('definition').textContent).toBe('Dark');
    expect(within(card).queryByRole('radio')).toBeNull();
    expect(within(card).queryByRole('button')).toBeNull();
  });

  it('becomes a record of what was answered once the server confirms a person`s answer', () => {
    const { push } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour, features])]);
    fireEvent.click(screen.getByRole('radio', { name: 'Light' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Export' }));
    submit();
    expect(screen.getByText('Sending…')).toBeTruthy();
    push(answered(3, { 'Which colour scheme?': 'Light', 'Which features?': 'Export' }));
    const card = screen.getByRole('region', { name: 'Question: Colours' });
    const rows = within(card)
      .getAllByRole('term')
      .map((term) => `${term.textContent} ${term.nextElementSibling?.textContent}`);
    expect(rows).toEqual(['Which colour scheme? Light', 'Which features? Export']);
    expect(card.textContent).toContain('Answered by you');
    expect(within(card).queryByRole('button')).toBeNull();
  });

  it('keeps the keyboard`s place: the focus moves from the vanished button to the card itself', () => {
    const { push } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour])]);
    fireEvent.click(screen.getByRole('radio', { name: 'Dark' }));
    const button = screen.getByRole('button', { name: 'Submit answer' });
    button.focus();
    fireEvent.click(button);
    push(answered(3, { 'Which colour scheme?': 'Dark' }));
    expect(document.activeElement).toBe(screen.getByRole('region', { name: 'Question: Colours' }));
  });

  it('leaves the focus alone when it was elsewhere as the card closed', () => {
    const { push } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour])]);
    const outside = document.createElement('input');
    document.body.append(outside);
    screen.getByRole('button', { name: 'Dismiss' }).focus();
    outside.focus();
    push(questionClosed(3, 'timed_out'));
    expect(document.activeElement).toBe(outside);
    outside.remove();
  });

  it('dismisses, and says so once the server closes the question', () => {
    const { actions, push } = renderFrames([started(1, 'run-1', 'go'), ask(2, [colour])]);
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(actions.dismiss).toHaveBeenCalledExactlyOnceWith('q-1');
    push(questionClosed(3, 'dismissed'));
    const card = screen.getByRole('region', { name: 'Question: Colours' });
    expect(card.textContent).toContain('Dismissed');
    expect(within(card).getByRole('listitem').textContent).toBe('Which colour scheme?');
    expect(within(card).queryByRole('button')).toBeNull();
  });
});

describe('PermissionCard', () => {
  const request = (seq: number, withSuggestions: boolean) =>
    relayEvent(seq, {
      type: 'claude:permission_request',
      runId: 'run-1',
      requestId: `p-${seq}`,
      toolName: 'Bash',
      input: { command: 'rm -rf build' },
      description: 'Remove the build folder',
      ...(withSuggestions ? { suggestions: [{ type: 'addRules', destination: 'session' }] } : {}),
    });

  it('offers "Allow and remember" only with suggestions, and sends each decision', () => {
    const { actions } = renderFrames([started(1, 'run-1', 'go'), request(2, true), request(3, false)]);
    const [withRules, without] = screen.getAllByRole('region', { name: 'Permission: Bash' });
    if (withRules === undefined || without === undefined) expect.unreachable();
    expect(withRules.textContent).toContain('rm -rf build');
    expect(within(without).queryByRole('button', { name: 'Allow and remember' })).toBeNull();

    fireEvent.click(within(withRules).getByRole('button', { name: 'Allow and remember' }));
    fireEvent.click(within(without).getByRole('button', { name: 'Deny' }));
    expect(actions.permission.mock.calls).toEqual([
      ['p-2', 'allow', true],
      ['p-3', 'deny', false],
    ]);
    expect(within(withRules).getByRole('button', { name: 'Allow' })).toHaveProperty('disabled', true);
  });

  it('shows the closing reason in words', () => {
    const { push } = renderFrames([started(1, 'run-1', 'go'), request(2, false)]);
    push(
      relayEvent(3, {
        type: 'claude:permission_closed',
        runId: 'run-1',
        requestId: 'p-2',
        reason: 'allowed',
      }),
    );
    const card = screen.getByRole('region', { name: 'Permission: Bash' });
    expect(within(card).getByText('Allowed')).toBeTruthy();
    expect(card.textContent).toContain('rm -rf build');
    expect(within(card).queryByRole('button')).toBeNull();
  });
});

describe('a prompt about a tool call', () => {
  it('shows inside that call’s card, between the call and its result; another one stands alone', () => {
    const input = { file_path: '/p/idea-0123456789abcdef/project/hello.py', content: 'print(1)\n' };
    const { push } = renderFrames([
      started(1, 'run-1', 'go'),
      toolUse(2, 'run-1', 'tu-1', 'Write', input),
      relayEvent(3, {
        type: 'claude:permission_request',
        runId: 'run-1',
        requestId: 'p-3',
        toolName: 'Write',
        input,
      }),
      relayEvent(4, {
        type: 'claude:permission_request',
        runId: 'run-1',
        requestId: 'p-4',
        toolName: 'Bash',
        input: { command: 'ls' },
      }),
    ]);
    const card = screen.getByRole('article', { name: 'Tool: Write' });
    const form = within(card).getByRole('region', { name: 'Permission: Write' });
    expect(within(form).queryByLabelText(/^Diff of/)).toBeNull(); // the card above shows the diff once
    expect(within(card).getAllByLabelText(/^Diff of/)).toHaveLength(1);
    const alone = screen.getByRole('region', { name: 'Permission: Bash' });
    expect(alone.closest('article')).toBeNull();

    push(
      relayEvent(5, {
        type: 'claude:permission_closed',
        runId: 'run-1',
        requestId: 'p-3',
        reason: 'allowed',
      }),
      toolResult(6, 'run-1', 'tu-1', 'File created'),
    );
    const after = screen.getByRole('article', { name: 'Tool: Write' });
    expect(within(after).getByText('Allowed')).toBeTruthy();
    const text = after.textContent;
    expect(text.indexOf('Allowed')).toBeLessThan(text.indexOf('File created'));
  });
});

describe('a permission request naming its call', () => {
  it('goes into the card of that call, even when another call has the same input', () => {
    const input = { command: 'git status' };
    const canUseTool = (seq: number, requestId: string, toolUseId: string) =>
      relayEvent(seq, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'control_request',
          request_id: requestId,
          request: { subtype: 'can_use_tool', tool_name: 'Bash', input, tool_use_id: toolUseId },
        },
      });
    renderFrames([
      started(1, 'run-1', 'go'),
      toolUse(2, 'run-1', 'tu-a', 'Bash', input),
      toolUse(3, 'run-1', 'tu-b', 'Bash', input),
      toolUse(4, 'run-1', 'tu-c', 'Bash', input),
      canUseTool(5, 'p-b', 'tu-b'),
      relayEvent(6, {
        type: 'claude:permission_request',
        runId: 'run-1',
        requestId: 'p-b',
        toolName: 'Bash',
        input,
      }),
    ]);
    // The middle one: neither the oldest nor the newest call with that input.
    const cards = screen.getAllByRole('article', { name: 'Tool: Bash' });
    expect(
      cards.map((card) => within(card).queryByRole('region', { name: 'Permission: Bash' }) !== null),
    ).toEqual([false, true, false]);
  });

  it('naming a call the transcript does not hold goes to the oldest matching call instead', () => {
    const input = { command: 'git status' };
    renderFrames([
      started(1, 'run-1', 'go'),
      toolUse(2, 'run-1', 'tu-a', 'Bash', input),
      toolUse(3, 'run-1', 'tu-b', 'Bash', input),
      relayEvent(4, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'control_request',
          request_id: 'p-x',
          request: { subtype: 'can_use_tool', tool_name: 'Bash', input, tool_use_id: 'tu-elsewhere' },
        },
      }),
      relayEvent(5, {
        type: 'claude:permission_request',
        runId: 'run-1',
        requestId: 'p-x',
        toolName: 'Bash',
        input,
      }),
    ]);
    const cards = screen.getAllByRole('article', { name: 'Tool: Bash' });
    expect(
      cards.map((card) => within(card).queryByRole('region', { name: 'Permission: Bash' }) !== null),
    ).toEqual([true, false]);
  });
});

describe('auto-scroll', () => {
  /** jsdom has no layout: give the log a size, as a browser would. */
  function layOut(element: HTMLElement, sizes: { scrollHeight: number; clientHeight: number }) {
    element.style.overflowY = 'auto';
    Object.defineProperty(element, 'scrollHeight', { configurable: true, get: () => sizes.scrollHeight });
    Object.defineProperty(element, 'clientHeight', { configurable: true, get: () => sizes.clientHeight });
  }

  it('follows new content at the bottom, and leaves a reader who scrolled up where they are', () => {
    const { push } = renderFrames([started(1, 'run-1', 'go')]);
    const log = screen.getByRole('log', { name: 'Transcript' });
    const sizes = { scrollHeight: 1000, clientHeight: 400 };
    layOut(log, sizes);

    push(text(2, 'run-1', 'm-1', 'first'));
    expect(log.scrollTop).toBe(1000);

    log.scrollTop = 100;
    fireEvent.scroll(log);
    sizes.scrollHeight = 1500;
    push(text(3, 'run-1', 'm-2', 'second'));
    expect(log.scrollTop).toBe(100);

    fireEvent.click(screen.getByRole('button', { name: 'Jump to latest' }));
    expect(log.scrollTop).toBe(1500);
    expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull();
  });
});
