import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProjectLinksProvider, type ProjectLinks } from '../files/project-context.ts';
import { Transcript, type TranscriptActions } from './Transcript.tsx';
import { relayEvent, started, toolResult, toolUse } from '../../test/support/transcript-fixtures.ts';
import { applyFrames, emptyTranscript } from './transcript-state.ts';
import { summarize } from './transcript-summary.ts';

// A tool card that wrote a file inside the project (Write, Edit, MultiEdit, NotebookEdit) links to it in the Files
// view, by its path relative to the project, which is the run's working directory; one outside it does not.

afterEach(cleanup);

const ROOT = '/home/me/ideas/idea-0123456789abcdef/project';
const actions: TranscriptActions = { answer: () => true, dismiss: () => true, permission: () => true };

const state = applyFrames(emptyTranscript, [
  started(1, 'run-1', 'Build it', 'build'),
  relayEvent(2, {
    type: 'claude:system',
    runId: 'run-1',
    sessionId: 'session-1',
    model: 'claude-sonnet',
    cwd: ROOT,
    tools: ['Write', 'Edit'],
    slashCommands: [],
  }),
  toolUse(3, 'run-1', 'tu-1', 'Write', { file_path: `${ROOT}/src/app.ts`, content: 'hi\n' }),
  toolResult(4, 'run-1', 'tu-1', 'Written'),
  toolUse(5, 'run-1', 'tu-2', 'Write', { file_path: '/tmp/elsewhere.txt', content: 'x' }),
  toolUse(6, 'run-1', 'tu-3', 'Edit', {
    file_path: `${ROOT}/../escape.ts`,
    old_string: 'a',
    new_string: 'b',
  }),
  toolUse(7, 'run-1', 'tu-4', 'NotebookEdit', { notebook_path: `${ROOT}/notes/a.ipynb`, new_source: 'x' }),
  toolUse(8, 'run-1', 'tu-5', 'Read', { file_path: `${ROOT}/src/app.ts` }),
]);

function renderWith(links: ProjectLinks) {
  render(
    <ProjectLinksProvider value={links}>
      <Transcript state={state} actions={actions} />
    </ProjectLinksProvider>,
  );
}

describe('"View file" on a tool card', () => {
  it('opens a file written inside the project at its relative path; none for the others', () => {
    const openFile = vi.fn();
    expect(summarize(state).projectRoot).toBe(ROOT);
    renderWith({ isRunning: true, root: summarize(state).projectRoot, openFile });
    const cards = screen.getAllByRole('article', { name: /^Tool: / });
    const links = cards.map((card) => within(card).queryByRole('button', { name: 'View file' }) !== null);
    expect(cards.map((card) => card.getAttribute('aria-label'))).toEqual([
      'Tool: Write',
      'Tool: Write',
      'Tool: Edit',
      'Tool: NotebookEdit',
      'Tool: Read',
    ]);
    expect(links).toEqual([true, false, false, true, false]);
    fireEvent.click(within(cards[0] ?? document.body).getByRole('button', { name: 'View file' }));
    expect(openFile).toHaveBeenCalledWith('src/app.ts');
    fireEvent.click(within(cards[3] ?? document.body).getByRole('button', { name: 'View file' }));
    expect(openFile).toHaveBeenLastCalledWith('notes/a.ipynb');
  });

  it('is not shown where there is no Files view, or before the project’s folder is known', () => {
    renderWith({ isRunning: false, root: ROOT, openFile: undefined });
    expect(screen.queryByRole('button', { name: 'View file' })).toBeNull();
    cleanup();
    renderWith({ isRunning: false, root: undefined, openFile: vi.fn() });
    expect(screen.queryByRole('button', { name: 'View file' })).toBeNull();
  });
});
