import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Transcript, type TranscriptActions } from './Transcript.tsx';
import {
  commandResult,
  relayEvent,
  started,
  text,
  textDelta,
  textReset,
  toolResult,
  toolUse,
} from '../../test/support/transcript-fixtures.ts';
import { applyFrames, emptyTranscript, type TranscriptFrame } from './transcript-state.ts';

afterEach(cleanup);

function renderFrames(frames: TranscriptFrame[]) {
  const actions: TranscriptActions = {
    answer: vi.fn(() => true),
    dismiss: vi.fn(() => true),
    permission: vi.fn(() => true),
  };
  let state = applyFrames(emptyTranscript, frames);
  const view = render(<Transcript state={state} actions={actions} />);
  const push = (...more: TranscriptFrame[]) => {
    state = applyFrames(state, more);
    view.rerender(<Transcript state={state} actions={actions} />);
  };
  return { push };
}

const log = () => screen.getByRole('log', { name: 'Transcript' });

describe('Transcript: order and streaming', () => {
  it('renders a replay that overlaps live events once each, in seq order', () => {
    const one = text(2, 'run-1', 'msg-1', 'one');
    const two = text(3, 'run-1', 'msg-2', 'two');
    const three = text(4, 'run-1', 'msg-3', 'three');
    const { push } = renderFrames([started(1, 'run-1', 'hello'), three]);
    push(one, three, two, one);
    const claude = within(log()).getAllByRole('article', { name: 'Claude' });
    expect(claude.map((article) => article.textContent)).toEqual(['one', 'two', 'three']);
    expect(within(log()).getAllByRole('article', { name: 'You' })).toHaveLength(1);
  });

  it('grows a streaming text in the same element, then settles it into the final text', () => {
    const { push } = renderFrames([started(1, 'run-1', 'hello'), textDelta('run-1', 'msg-1', 'Hel')]);
    const draft = screen.getByRole('article', { name: 'Claude' });
    expect(draft).toHaveProperty('dataset.streaming', 'true');
    expect(draft.textContent).toBe('Hel');

    push(textDelta('run-1', 'msg-1', 'lo, '), textDelta('run-1', 'msg-1', 'world'));
    const grown = screen.getByRole('article', { name: 'Claude' });
    expect(grown).toBe(draft);
    expect(grown.textContent).toBe('Hello, world');

    push(text(2, 'run-1', 'msg-1', 'Hello, world!'));
    const final = screen.getAllByRole('article', { name: 'Claude' });
    expect(final).toHaveLength(1);
    expect(final[0]).toBe(draft);
    expect(final[0]?.textContent).toBe('Hello, world!');
    expect(final[0]?.dataset['streaming']).toBeUndefined();
  });

  it('drops the partial text on claude:text_reset', () => {
    const { push } = renderFrames([
      started(1, 'run-1', 'hello'),
      textDelta('run-1', 'msg-1', 'abandoned attempt'),
    ]);
    expect(screen.getByRole('article', { name: 'Claude' }).textContent).toBe('abandoned attempt');
    push(textReset('run-1'));
    expect(screen.queryByRole('article', { name: 'Claude' })).toBeNull();
    expect(log().textContent).not.toContain('abandoned');
  });
});

describe('Transcript: content', () => {
  it('renders Markdown with highlighted code and safe links, and no raw HTML', () => {
    const body = 'See [docs](https://example.com).\n\n<b>bold?</b>\n\n```ts\nconst x = 1;\n```';
    renderFrames([started(1, 'run-1', 'hi'), text(2, 'run-1', 'msg-1', body)]);
    const article = screen.getByRole('article', { name: 'Claude' });
    const link = within(article).getByRole('link', { name: 'docs' });
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noreferrer noopener');
    expect(article.querySelector('b')).toBeNull();
    expect(article.querySelector('code.hljs .hljs-keyword')?.textContent).toBe('const');
  });

  it('shows the user message with its mode, and thinking collapsed', () => {
    renderFrames([
      started(1, 'run-1', 'Build the thing', 'build'),
      relayEvent(2, { type: 'claude:thinking', runId: 'run-1', thinking: 'Let me think', messageId: 'm' }),
    ]);
    const you = screen.getByRole('article', { name: 'You' });
    expect(you.textContent).toContain('Build');
    expect(you.textContent).toContain('Build the thing');
    const thinking = screen.getByText('Thinking').closest('details');
    expect(thinking?.open).toBe(false);
    expect(thinking?.textContent).toContain('Let me think');
  });

  it('attaches a tool result to its call and marks errors', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      toolUse(2, 'run-1', 'tu-1', 'Bash', { command: 'npm test', description: 'Run the tests' }),
      toolUse(3, 'run-1', 'tu-2', 'Grep', { pattern: 'TODO' }),
      toolResult(4, 'run-1', 'tu-2', 'no matches', true),
      toolResult(5, 'run-1', 'tu-1', '3 passed'),
    ]);
    const bash = screen.getByRole('article', { name: 'Tool: Bash' });
    expect(bash.textContent).toContain('npm test');
    expect(bash.textContent).toContain('3 passed');
    expect(within(bash).queryByText('Error')).toBeNull();
    const grep = screen.getByRole('article', { name: 'Tool: Grep' });
    expect(grep.textContent).toContain('TODO');
    expect(within(grep).getByText('Error')).toBeTruthy();
    expect(grep.textContent).toContain('no matches');
  });

  it('collapses a long result into a "Result" disclosure', () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    renderFrames([
      toolUse(1, 'run-1', 'tu-1', 'Read', { file_path: '/a.txt' }),
      toolResult(2, 'run-1', 'tu-1', long),
    ]);
    const card = screen.getByRole('article', { name: 'Tool: Read' });
    const details = within(card).getByText('Result').closest('details');
    expect(details?.open).toBe(false);
    expect(details?.textContent).toContain('line 29');
  });

  it('shows a Write as a diff of added lines', () => {
    renderFrames([
      toolUse(1, 'run-1', 'tu-1', 'Write', { file_path: '/w/a.ts', content: 'one\ntwo\nthree\n' }),
    ]);
    const diff = screen.getByLabelText('Diff of /w/a.ts');
    const added = [...diff.querySelectorAll('.diff-add .t-diff__line')].map((cell) => cell.textContent);
    expect(added).toEqual(['one', 'two', 'three']);
    expect(diff.querySelectorAll('.diff-del')).toHaveLength(0);
  });

  it('shows an Edit as removed and added lines around unchanged ones', () => {
    renderFrames([
      toolUse(1, 'run-1', 'tu-1', 'Edit', {
        file_path: '/w/b.ts',
        old_string: 'keep\nold line\n',
        new_string: 'keep\nnew line\n',
      }),
    ]);
    const diff = screen.getByLabelText('Diff of /w/b.ts');
    const lines = (kind: string) =>
      [...diff.querySelectorAll(`.diff-${kind} .t-diff__line`)].map((cell) => cell.textContent);
    expect(lines('ctx')).toEqual(['keep']);
    expect(lines('del')).toEqual(['old line']);
    expect(lines('add')).toEqual(['new line']);
  });

  it('writes other CLI events and errors as one line each', () => {
    renderFrames([
      relayEvent(1, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'system',
          subtype: 'api_retry',
          attempt: 2,
          max_retries: 10,
          retry_delay_ms: 1500,
          error_status: 529,
          error: 'overloaded',
        },
      }),
      relayEvent(2, {
        type: 'claude:event',
        runId: 'run-1',
        message: { type: 'unknown', originalType: 'mystery', reason: 'unknown type', raw: {} },
      }),
      relayEvent(3, { type: 'claude:error', runId: 'run-1', source: 'stderr', text: 'warning: low disk' }),
    ]);
    const lines = [...log().querySelectorAll('.event-line')].map((line) => line.textContent);
    expect(lines[0]).toMatch(/^system\/api_retry attempt 2 of 10/);
    expect(lines[1]).toBe('unknown mystery: unknown type');
    expect(log().querySelector('.error-line')?.textContent).toContain('warning: low disk');
  });

  it('writes no line for a running tool’s heartbeat, and reads again what an older Catalyst kept as unknown', () => {
    const heartbeat = {
      type: 'tool_progress',
      tool_use_id: 'toolu_1-heartbeat-0',
      tool_name: 'Bash',
      parent_tool_use_id: 'toolu_1',
      elapsed_time_seconds: 30,
      heartbeat: true,
    } as const;
    renderFrames([
      relayEvent(1, { type: 'claude:event', runId: 'run-1', message: heartbeat }),
      relayEvent(2, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'unknown',
          originalType: 'tool_progress',
          reason: 'unknown type "tool_progress"',
          raw: { ...heartbeat, elapsed_time_seconds: 60 },
        },
      }),
      relayEvent(3, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'unknown',
          originalType: 'mystery',
          reason: 'unknown type',
          raw: { type: 'mystery' },
        },
      }),
      // Kept as unknown by an older Catalyst, and known now: in words.
      relayEvent(4, {
        type: 'claude:event',
        runId: 'run-1',
        message: {
          type: 'unknown',
          originalType: 'system',
          originalSubtype: 'background_tasks_changed',
          reason: 'unknown system subtype "background_tasks_changed"',
          raw: {
            type: 'system',
            subtype: 'background_tasks_changed',
            tasks: [{ task_id: 'b1', task_type: 'local_bash', description: 'Wait for go' }],
            session_id: 's',
            uuid: 'u',
          },
        },
      }),
    ]);
    const lines = [...log().querySelectorAll('.event-line')].map((line) => line.textContent);
    // The words, with the raw line behind them.
    expect(lines).toEqual([
      'unknown mystery: unknown type',
      'Running in the background: Wait for gosystem/background_tasks_changed Wait for go',
    ]);
  });
});

describe('Transcript: run summary', () => {
  const summaryText = () => screen.getByRole('note', { name: 'Run summary' }).textContent;

  it('reads a completed run from its result', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'run:ended',
        runId: 'run-1',
        outcome: 'completed',
        result: commandResult({ durationMs: 3200, numTurns: 2, costUsd: 0.0123 }),
      }),
    ]);
    expect(summaryText()).toBe('Completed · 3.2 s · 2 turns · $0.0123');
  });

  it('measures a cancelled run without a result from its timestamps', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(6, { type: 'run:ended', runId: 'run-1', outcome: 'cancelled' }),
    ]);
    expect(summaryText()).toBe('Cancelled · 5.0 s');
  });

  it('explains a timed-out run with the error message', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'claude:result',
        runId: 'run-1',
        result: commandResult({ durationMs: 600_000, numTurns: 1, costUsd: 0.5 }),
      }),
      relayEvent(3, {
        type: 'run:ended',
        runId: 'run-1',
        outcome: 'timed_out',
        error: { code: 'RUN_TIMED_OUT', message: 'Claude process timed out (10 min)' },
      }),
    ]);
    expect(summaryText()).toBe(
      'Timed out · 10 min 0 s · 1 turn · $0.5000 — Claude process timed out (10 min)',
    );
  });

  it('explains a failed run with the result’s error', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'run:ended',
        runId: 'run-1',
        outcome: 'failed',
        result: commandResult({
          durationMs: 1000,
          numTurns: 3,
          costUsd: 0.02,
          error: 'Reached the turn limit',
        }),
      }),
    ]);
    expect(summaryText()).toBe('Failed · 1.0 s · 3 turns · $0.0200 — Reached the turn limit');
  });

  it('says how to log in when the CLI on the host has no credentials', () => {
    renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'run:ended',
        runId: 'run-1',
        outcome: 'failed',
        result: commandResult({
          durationMs: 1100,
          numTurns: 1,
          costUsd: 0,
          error: 'Not logged in · Please run /login',
        }),
      }),
    ]);
    const note = screen.getByRole('note', { name: 'Run summary' });
    expect(note.firstChild?.textContent).toBe(
      'Failed · 1.1 s · 1 turn · $0.0000 — Not logged in · Please run /login',
    );
    expect(within(note).getByRole('paragraph').textContent).toContain('not logged in on this idea’s host');
  });

  it('says the login was refused for a refused key, and gives no hint for a cancelled run', () => {
    const { push } = renderFrames([
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'run:ended',
        runId: 'run-1',
        outcome: 'failed',
        result: commandResult({
          durationMs: 900,
          numTurns: 1,
          costUsd: 0,
          error: 'Invalid API key · Fix external API key',
        }),
      }),
    ]);
    expect(screen.getByRole('note', { name: 'Run summary' }).textContent).toContain(
      'login on this idea’s host was refused',
    );
    push(
      started(3, 'run-2', 'again'),
      relayEvent(4, {
        type: 'run:ended',
        runId: 'run-2',
        outcome: 'cancelled',
        error: { code: 'CLI_FAILED', message: 'Not logged in · Please run /login' },
      }),
    );
    const [, cancelled] = screen.getAllByRole('note', { name: 'Run summary' });
    expect(cancelled?.querySelector('p')).toBeNull();
  });
});

describe('Transcript: long histories', () => {
  const line = (seq: number) =>
    relayEvent(seq, { type: 'claude:error', source: 'stderr', text: `line ${seq}` });
  const shownLines = () => [...log().querySelectorAll('.error-line')].map((el) => el.textContent);

  it('renders the latest items first, earlier ones on request, and never drops one as more arrive', () => {
    const { push } = renderFrames(Array.from({ length: 350 }, (_, i) => line(i + 1)));
    expect(shownLines()).toHaveLength(300);
    expect(shownLines()[0]).toContain('line 51');

    push(line(351));
    expect(shownLines()).toHaveLength(301);
    expect(shownLines()[0]).toContain('line 51');

    fireEvent.click(screen.getByRole('button', { name: 'Show earlier (50)' }));
    expect(shownLines()).toHaveLength(351);
    expect(shownLines()[0]).toContain('line 1');
    expect(screen.queryByRole('button', { name: /Show earlier/ })).toBeNull();
  });
});

describe('Transcript: a session that was replaced', () => {
  it('says where a run started a new Claude session with a recap, between the message and the answer', () => {
    renderFrames([
      started(1, 'run-1', 'Which data source?'),
      relayEvent(2, { type: 'run:session_replaced', runId: 'run-1', previousSessionId: 'old-session' }),
      text(3, 'run-1', 'msg-1', 'Picking up from the recap.'),
    ]);
    const notice = within(log()).getByRole('note');
    expect(notice.textContent).toBe(
      "Claude's earlier session for this idea was no longer on the VM; a new one started with a recap.",
    );
    const all = log().textContent;
    expect(all.indexOf('Which data source?')).toBeLessThan(all.indexOf('no longer on the VM'));
    expect(all.indexOf('no longer on the VM')).toBeLessThan(all.indexOf('Picking up from the recap.'));
  });
});

describe('Transcript: opened at a waiting card', () => {
  const original = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollIntoView');
  afterEach(() => {
    window.history.replaceState(null, '', '/');
    if (original === undefined) Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
    else Object.defineProperty(Element.prototype, 'scrollIntoView', original);
  });

  it('brings the card that #seq-<n> names (a push’s link) into view and focus once it arrives', () => {
    window.history.replaceState(null, '', '/ideas/idea-0123456789abcdef#seq-3');
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const { push } = renderFrames([
      started(1, 'run-1', 'Pick one'),
      text(2, 'run-1', 'msg-1', 'Let me ask.'),
    ]);
    expect(scrolled).not.toHaveBeenCalled();
    push(
      relayEvent(3, {
        type: 'claude:question',
        runId: 'run-1',
        questionId: 'q-1',
        askedAt: '2025-01-01T12:00:00.000Z',
        questions: [{ question: 'Which color?', header: 'Color', options: [], multiSelect: false }],
      }),
    );
    const card = screen.getByRole('region', { name: 'Question: Color' });
    expect(card.id).toBe('seq-3');
    expect(scrolled).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(card);
  });
});
