import { CheckpointViewSchema, type RelayEvent } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { ProjectLinksProvider } from '../files/project-context.ts';
import { Transcript, type TranscriptActions } from '../transcript/Transcript.tsx';
import { IDEA_ID, relayEvent, started } from '../../test/support/transcript-fixtures.ts';
import { applyFrames, emptyTranscript } from '../transcript/transcript-state.ts';

// Under a build's summary, its checkpoint: the counts, "View changes" (the diff fetched when opened, one
// collapsible part per file, binary files only named, a cut diff said to be cut) and "Restore to before this
// build" (a dialog says what happens; only then the restore is asked for, to the checkpoint's parent; a refusal is
// the server's sentence; disabled during a run; absent for the first checkpoint, which has nothing before it).

const scrolled = vi.fn();

beforeEach(() => {
  // jsdom lays nothing out: what is brought into view is recorded.
  scrolled.mockClear();
  Element.prototype.scrollIntoView = scrolled;
  // The diff's review (issue 30, CheckpointReview.test.tsx): none here.
  vi.spyOn(api, 'listReviewComments').mockResolvedValue([]);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const PARENT = '1'.repeat(40);
const COMMIT = '2'.repeat(40);

const DIFF = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 4cb29ea..047ece5 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,2 +1,2 @@',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  'diff --git a/logo.png b/logo.png',
  'new file mode 100644',
  'index 0000000..8835708',
  'Binary files /dev/null and b/logo.png differ',
  'diff --git a/README.md b/README.md',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ b/README.md',
  '@@ -0,0 +1 @@',
  '+# Hello',
  '',
].join('\n');

function checkpointCreated(parent: string | null): RelayEvent {
  return relayEvent(2, {
    type: 'checkpoint:created',
    runId: 'run-1',
    kind: 'build',
    commit: COMMIT,
    parent,
    filesChanged: 3,
    insertions: 40,
    deletions: 2,
    files: [{ path: 'src/app.ts', status: 'modified', insertions: 40, deletions: 2 }],
  });
}

function renderBuild({
  parent = PARENT,
  isRunning = false,
}: {
  parent?: string | null;
  isRunning?: boolean;
}) {
  const state = applyFrames(emptyTranscript, [
    started(1, 'run-1', 'Build it', 'build'),
    checkpointCreated(parent),
    relayEvent(3, { type: 'run:ended', runId: 'run-1', outcome: 'completed' }),
  ]);
  const actions: TranscriptActions = { answer: () => true, dismiss: () => true, permission: () => true };
  render(
    <ProjectLinksProvider value={{ isRunning, root: undefined, openFile: undefined }}>
      <Transcript state={state} actions={actions} />
    </ProjectLinksProvider>,
  );
}

const line = () => document.querySelector('.t-checkpoint__line')?.textContent;
const button = (name: string) => screen.getByRole('button', { name });

describe('a build’s checkpoint line', () => {
  it('says what the build changed, under its summary', () => {
    renderBuild({});
    expect(screen.getByRole('note', { name: 'Run summary' }).textContent).toMatch(/^Completed/);
    expect(line()).toBe('3 files changed, +40 −2 · View changes · Restore to before this build');
  });

  it('fetches the diff when "View changes" is opened, and shows it per file, each collapsible', async () => {
    const diff = vi.spyOn(api, 'checkpointDiff').mockResolvedValue({
      commit: COMMIT,
      parent: PARENT,
      diff: DIFF,
      truncated: false,
    });
    renderBuild({});
    expect(diff).not.toHaveBeenCalled();
    fireEvent.click(button('View changes'));
    expect(button('View changes').getAttribute('aria-expanded')).toBe('true');
    const changes = await screen.findByRole('region', { name: 'Changes of this build' });
    expect(diff).toHaveBeenCalledWith(IDEA_ID, COMMIT);
    // Opened, the diff comes into view at the top of the window (issue 31), not below the fold.
    expect(scrolled.mock.contexts[0]).toBe(changes);
    expect(scrolled).toHaveBeenCalledWith({ block: 'start' });
    // Three files at most five: each starts open. A toggle's name is the file and how it changed. The region shows
    // "Loading the changes…" until the diff is there: wait for it, not for the region.
    const toggles = async () =>
      (await within(changes).findAllByRole('button')).filter((one) => one.hasAttribute('aria-expanded'));
    expect(await toggles()).toHaveLength(3);
    for (const name of ['src/app.ts modified, +1 −1', 'logo.png added, binary', 'README.md added, +1 −0']) {
      expect(within(changes).getByRole('button', { name }).getAttribute('aria-expanded')).toBe('true');
    }
    const table = within(changes).getByRole('table', { name: 'Diff of src/app.ts' });
    expect([...table.querySelectorAll('tr')].map((row) => [row.className, row.textContent])).toEqual([
      ['diff-hunk', '@@@ -1,2 +1,2 @@'],
      ['diff-ctx', '1 const a = 1;'],
      ['diff-del', '2-const b = 2;'],
      ['diff-add', '2+const b = 3;'],
    ]);
    expect(within(changes).getByText('A binary file: its contents are not shown.')).toBeTruthy();

    const toggle = within(changes).getByRole('button', { name: /^src\/app\.ts/ });
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(within(changes).queryByRole('table', { name: 'Diff of src/app.ts' })).toBeNull();
    fireEvent.click(button('View changes'));
    expect(screen.queryByRole('region', { name: 'Changes of this build' })).toBeNull();
  });

  it('says so when the server cut the diff, and shows a failure as its sentence', async () => {
    const cut = `${DIFF}[… the diff is longer than 2097152 bytes; the rest is not shown]\n`;
    vi.spyOn(api, 'checkpointDiff').mockResolvedValueOnce({
      commit: COMMIT,
      parent: PARENT,
      diff: cut,
      truncated: true,
    });
    renderBuild({});
    fireEvent.click(button('View changes'));
    const changes = await screen.findByRole('region', { name: 'Changes of this build' });
    expect((await within(changes).findByRole('note')).textContent).toBe(
      'Truncated: the diff is longer than 2.0 MiB; the rest is not shown.',
    );
    expect(within(changes).getByRole('button', { name: 'README.md added, +1 −0, cut short' })).toBeTruthy();

    const sentence = 'This checkpoint is not one of this idea’s.';
    vi.spyOn(api, 'checkpointDiff').mockRejectedValueOnce(
      new ApiError('CHECKPOINT_NOT_FOUND', sentence, 404),
    );
    fireEvent.click(button('View changes'));
    fireEvent.click(button('View changes'));
    expect((await screen.findByRole('alert')).textContent).toBe(sentence);
  });

  it('asks before restoring, saying what will happen, and restores to the checkpoint’s parent', async () => {
    const restored = CheckpointViewSchema.parse({
      commit: '3'.repeat(40),
      parent: COMMIT,
      kind: 'restore',
      restoredTo: PARENT,
      filesChanged: 3,
      insertions: 2,
      deletions: 40,
      files: [],
      createdAt: '2025-01-01T12:00:10.000Z',
    });
    const restore = vi.spyOn(api, 'restoreCheckpoint').mockResolvedValue(restored);
    renderBuild({});
    fireEvent.click(button('Restore to before this build'));
    const dialog = screen.getByRole('dialog', { name: 'Restore to before this build?' });
    expect(dialog.textContent).toContain('go back to exactly how they were before this build');
    expect(dialog.textContent).toContain('recorded as a new checkpoint, so it can be undone');
    expect(dialog.textContent).toContain('Claude is told in your next message');
    expect(document.activeElement, 'the harmless choice has the focus').toBe(
      within(dialog).getByRole('button', { name: 'Cancel' }),
    );
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(restore).not.toHaveBeenCalled();

    fireEvent.click(button('Restore to before this build'));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Restore files' }));
    expect(restore).toHaveBeenCalledWith(IDEA_ID, PARENT);
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull();
    });
  });

  it('shows a refused restore as the server’s sentence, in the dialog', async () => {
    const sentence = 'This idea is busy: a run is going on. Wait for it to end, or cancel it.';
    vi.spyOn(api, 'restoreCheckpoint').mockRejectedValue(new ApiError('RUN_IN_PROGRESS', sentence, 409));
    renderBuild({});
    fireEvent.click(button('Restore to before this build'));
    const dialog = screen.getByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Restore files' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(sentence);
    expect(within(dialog).getByRole('button', { name: 'Restore files' })).toHaveProperty('disabled', false);
  });

  it('cannot restore during a run, and has nothing to restore to for the first checkpoint', () => {
    renderBuild({ isRunning: true });
    const restore = button('Restore to before this build');
    expect(restore).toHaveProperty('disabled', true);
    expect(restore.getAttribute('title')).toMatch(/^Wait for the run to end/);
    cleanup();
    renderBuild({ parent: null });
    expect(line()).toBe('3 files changed, +40 −2 · View changes');
    expect(screen.queryByRole('button', { name: 'Restore to before this build' })).toBeNull();
  });
});
