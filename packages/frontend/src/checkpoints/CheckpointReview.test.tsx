import type { ReviewCommentView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { CheckpointDiff } from './CheckpointDiff.tsx';

// Review comments on a checkpoint's diff (issue 30): a click on a line's number opens a comment form for it, a
// shift-click takes a range, a deleted line is commented on as such; the comment is sent to the server with the
// file, side and lines; the review under the diff lists the server's comments (stale and sent ones marked, a sent
// one no longer editable), shows each under its last line, and "Send review" sends them, a refusal shown as the
// server's sentence.

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const IDEA = 'idea-aaaaaaaaaaaaaaaa';
const COMMIT = '2'.repeat(40);
const DIFF = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 4cb29ea..047ece5 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,2 +1,3 @@',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  '+const c = 4;',
  '',
].join('\n');

function comment(fields: Partial<ReviewCommentView>): ReviewCommentView {
  return {
    id: 'rc-0000000000000001',
    commit: COMMIT,
    path: 'src/app.ts',
    side: 'new',
    startLine: 1,
    endLine: 2,
    lines: ['const a = 1;', 'const b = 3;'],
    body: 'Why 3?',
    createdAt: '2025-01-01T12:00:00.000Z',
    updatedAt: '2025-01-01T12:00:00.000Z',
    isStale: false,
    ...fields,
  };
}

async function renderDiff() {
  vi.spyOn(api, 'checkpointDiff').mockResolvedValue({
    commit: COMMIT,
    parent: '1'.repeat(40),
    diff: DIFF,
    truncated: false,
  });
  render(<CheckpointDiff id="changes" ideaId={IDEA} commit={COMMIT} />);
  return screen.findByRole('table', { name: 'Diff of src/app.ts' });
}

describe('review comments on a checkpoint’s diff', () => {
  it('comments on a range of lines, then shows the comment under its last line and in the review', async () => {
    const list = vi.spyOn(api, 'listReviewComments').mockResolvedValue([]);
    const add = vi.spyOn(api, 'addReviewComment').mockResolvedValue(comment({}));
    const table = await renderDiff();
    const review = screen.getByRole('region', { name: 'Review' });
    expect(review.textContent).toContain('To comment on a line, click its number');
    expect(within(review).getByRole('button', { name: 'Send review' })).toHaveProperty('disabled', true);

    fireEvent.click(within(table).getByRole('button', { name: 'Comment on line 1 of src/app.ts' }));
    fireEvent.click(within(table).getByRole('button', { name: 'Comment on line 2 of src/app.ts' }), {
      shiftKey: true,
    });
    const box = within(table).getByRole('textbox', { name: 'Comment on lines 1–2 of src/app.ts' });
    expect(table.querySelectorAll('.review-diff__selected')).toHaveLength(2);
    fireEvent.change(box, { target: { value: 'Why 3?' } });
    list.mockResolvedValue([
      comment({}),
      comment({
        id: 'rc-0000000000000002',
        startLine: 3,
        endLine: 3,
        body: 'Drop c.',
        isStale: true,
        sentAt: '2025-01-01T12:01:00.000Z',
      }),
    ]);
    fireEvent.click(within(table).getByRole('button', { name: 'Add comment' }));
    expect(add).toHaveBeenCalledWith(IDEA, COMMIT, {
      path: 'src/app.ts',
      side: 'new',
      startLine: 1,
      endLine: 2,
      body: 'Why 3?',
    });
    await waitFor(() => {
      expect(within(table).queryByRole('textbox')).toBeNull();
    });

    // The review lists the server's comments, as they are now: the second sent, and its lines changed since.
    const items = await within(review).findAllByRole('listitem');
    expect(items.map((item) => item.querySelector('.review-note__where')?.textContent)).toEqual([
      'src/app.ts, lines 1–2',
      'src/app.ts, line 3 · changed since · sent',
    ]);
    expect(
      within(review).getByRole('button', { name: 'Edit the comment on lines 1–2 of src/app.ts' }),
    ).toBeTruthy();
    expect(
      within(review).queryByRole('button', { name: 'Edit the comment on line 3 of src/app.ts' }),
    ).toBeNull();
    expect(review.textContent).toContain('one comment, as one build message');
    // In the diff, each under the last line it is about.
    const rows = [...table.querySelectorAll('tr')];
    const under = (text: string) =>
      rows[rows.findIndex((row) => row.textContent.endsWith(text)) + 1]?.textContent;
    expect(under('const b = 3;')).toBe('lines 1–2Why 3?');
    expect(under('const c = 4;')).toBe('line 3 · changed since · sentDrop c.');
  });

  it('comments on a deleted line as the old side', async () => {
    vi.spyOn(api, 'listReviewComments').mockResolvedValue([]);
    const add = vi.spyOn(api, 'addReviewComment').mockResolvedValue(comment({ side: 'old' }));
    const table = await renderDiff();
    fireEvent.click(within(table).getByRole('button', { name: 'Comment on deleted line 2 of src/app.ts' }));
    fireEvent.change(
      within(table).getByRole('textbox', { name: 'Comment on deleted line 2 of src/app.ts' }),
      {
        target: { value: 'Keep 2.' },
      },
    );
    fireEvent.click(within(table).getByRole('button', { name: 'Add comment' }));
    expect(add).toHaveBeenCalledWith(IDEA, COMMIT, {
      path: 'src/app.ts',
      side: 'old',
      startLine: 2,
      endLine: 2,
      body: 'Keep 2.',
    });
  });

  it('sends the review, and shows a refusal as the server’s sentence', async () => {
    const list = vi.spyOn(api, 'listReviewComments').mockResolvedValue([comment({})]);
    const sentence = 'This idea is busy: a run is going on. Wait for it to end, or cancel it.';
    const send = vi
      .spyOn(api, 'sendReview')
      .mockRejectedValueOnce(new ApiError('RUN_IN_PROGRESS', sentence, 409))
      .mockResolvedValueOnce({ message: 'Review …', runId: 'run-1', comments: [] });
    await renderDiff();
    const review = screen.getByRole('region', { name: 'Review' });
    const button = await within(review).findByRole('button', { name: 'Send review' });
    await waitFor(() => {
      expect(button).toHaveProperty('disabled', false);
    });
    fireEvent.click(button);
    expect((await within(review).findByRole('alert')).textContent).toBe(sentence);
    list.mockResolvedValue([comment({ sentAt: '2025-01-01T12:01:00.000Z', sentRunId: 'run-1' })]);
    fireEvent.click(button);
    expect((await within(review).findByRole('status')).textContent).toBe(
      'Sent: Claude builds on your review.',
    );
    expect(send).toHaveBeenCalledTimes(2);
    expect(send).toHaveBeenCalledWith(IDEA, COMMIT);
    await waitFor(() => {
      expect(button).toHaveProperty('disabled', true);
    });
    expect(within(review).getByRole('listitem').textContent).toContain('sent');
  });
});
