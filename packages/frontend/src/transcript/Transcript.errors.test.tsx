import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as ClaudeTextModule from './ClaudeText.tsx';
import { Transcript, type TranscriptActions } from './Transcript.tsx';
import { started, text, textDelta, toolResult, toolUse } from '../../test/support/transcript-fixtures.ts';
import { applyFrames, emptyTranscript, type TranscriptFrame } from './transcript-state.ts';

// One item whose component throws (a stand-in for a rendering bug no test has found yet): ClaudeText breaks on
// any text holding "BOOM", and counts its attempts.
const attempts = vi.hoisted(() => ({ broken: 0 }));
vi.mock('./ClaudeText.tsx', async (importOriginal) => {
  const original = await importOriginal<typeof ClaudeTextModule>();
  return {
    ClaudeText: (props: Parameters<typeof original.ClaudeText>[0]) => {
      if (props.text.includes('BOOM')) {
        attempts.broken += 1;
        throw new Error('a rendering bug');
      }
      return original.ClaudeText(props);
    },
  };
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  attempts.broken = 0;
});

const actions: TranscriptActions = { answer: () => true, dismiss: () => true, permission: () => true };

function renderFrames(frames: TranscriptFrame[]) {
  let state = applyFrames(emptyTranscript, frames);
  const view = render(<Transcript state={state} actions={actions} />);
  return (...more: TranscriptFrame[]) => {
    state = applyFrames(state, more);
    view.rerender(<Transcript state={state} actions={actions} />);
  };
}

describe('Transcript: an item that cannot be shown', () => {
  it('is one line saying so; the items around it stay, later ones arrive, and it is not retried unchanged', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const push = renderFrames([
      started(1, 'run-1', 'hello'),
      text(2, 'run-1', 'msg-1', 'Before.'),
      textDelta('run-1', 'msg-2', 'It went BOOM'),
    ]);
    const log = screen.getByRole('log', { name: 'Transcript' });
    expect(log.textContent).toContain('This part of the conversation (text) could not be shown');
    expect(log.textContent).toContain('Before.');
    expect(log.textContent).not.toContain('a rendering bug');
    const afterFailing = attempts.broken;

    push(toolUse(3, 'run-1', 'tu-1', 'Bash', { command: 'ls' }), toolResult(4, 'run-1', 'tu-1', 'a.txt'));
    expect(screen.getByRole('article', { name: 'Tool: Bash' }).textContent).toContain('ls');
    expect(attempts.broken, 'the unchanged item was not rendered again').toBe(afterFailing);
  });

  it('is tried again when it changes, and shows once it can', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const push = renderFrames([started(1, 'run-1', 'hello'), textDelta('run-1', 'msg-1', 'BOOM')]);
    expect(screen.getByRole('log').textContent).toContain('could not be shown');
    push(text(2, 'run-1', 'msg-1', 'All good in the end.'));
    expect(screen.getByRole('log').textContent).toContain('All good in the end.');
    expect(screen.getByRole('log').textContent).not.toContain('could not be shown');
  });
});
