import { describe, expect, it } from 'vitest';
import type { CheckpointView } from '@catalyst/protocol';
import { restoreNote } from './checkpoints.ts';

function view(commit: string, more: Partial<CheckpointView>): CheckpointView {
  return {
    commit: commit.repeat(40),
    parent: null,
    kind: 'build',
    filesChanged: 0,
    insertions: 0,
    deletions: 0,
    files: [],
    createdAt: '2026-11-25T10:00:00.000Z',
    ...more,
  };
}

describe('restoreNote', () => {
  const before = view('a', { kind: 'before_build', runId: 'run-1' });
  const first = view('b', { parent: before.commit, runId: 'run-1' });
  const second = view('c', { parent: first.commit, runId: 'run-2' });
  const known = [second, first, before];

  it('names the build that started from the checkpoint restored to', () => {
    expect(restoreNote(first, known)).toContain('to the state before run run-2;');
    expect(restoreNote(before, known)).toContain('to the state before run run-1;');
  });

  it('names the build itself when no later build started from it', () => {
    expect(restoreNote(second, known)).toContain('to the state after run run-2;');
  });

  it('names the checkpoint when neither is known', () => {
    const restore = view('d', { kind: 'restore', parent: second.commit });
    expect(restoreNote(restore, [restore, ...known])).toContain(
      `checkpoint ${'d'.repeat(12)} of 2026-11-25T10:00:00.000Z`,
    );
  });
});
