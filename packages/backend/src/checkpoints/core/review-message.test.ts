import type { ReviewCommentView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { composeReviewMessage, firstWords, STALE_NOTE } from './review-message.ts';

// A review becomes one build message: a heading naming the build and checkpoint, then each comment in diff order
// (file, deleted lines first, line), with its file, line numbers, the quoted lines in a code block and the text.

const COMMIT = 'abcdef0123456789'.padEnd(40, '0');

function comment(fields: Partial<ReviewCommentView>): ReviewCommentView {
  return {
    id: 'rc-0000000000000000',
    commit: COMMIT,
    path: 'a.txt',
    side: 'new',
    startLine: 1,
    endLine: 1,
    lines: ['one'],
    body: 'Say more.',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    isStale: false,
    ...fields,
  };
}

describe('composeReviewMessage', () => {
  it('quotes every comment with its file, lines and text, in the order of the diff', () => {
    const message = composeReviewMessage({
      commit: COMMIT,
      buildMessage: 'Write two files',
      comments: [
        comment({
          path: 'src/b.ts',
          startLine: 2,
          endLine: 3,
          lines: ['let b = 1;', 'let c = 2;'],
          body: 'Use const.',
        }),
        comment({ path: 'a.txt', startLine: 4, endLine: 4, lines: ['four'], body: 'Spell it out.' }),
        comment({
          path: 'a.txt',
          side: 'old',
          startLine: 9,
          endLine: 9,
          lines: ['gone'],
          body: 'Keep this.',
        }),
      ],
    });
    expect(message).toBe(
      [
        'Review of the changes made by the build “Write two files” (checkpoint abcdef012345): 3 comments. ' +
          'Each names a file and lines, quotes them, then says what to do about them.',
        '',
        '1. a.txt, line 9 (deleted by that build; as the file was before it):',
        '```',
        'gone',
        '```',
        'Keep this.',
        '',
        '2. a.txt, line 4:',
        '```',
        'four',
        '```',
        'Spell it out.',
        '',
        '3. src/b.ts, lines 2-3:',
        '```',
        'let b = 1;',
        'let c = 2;',
        '```',
        'Use const.',
      ].join('\n'),
    );
  });

  it('says when a comment’s lines have changed since, or moved', () => {
    const message = composeReviewMessage({
      commit: COMMIT,
      comments: [
        comment({ isStale: true }),
        comment({ path: 'b.txt', movedTo: 7, startLine: 5, endLine: 5 }),
      ],
    });
    expect(message).toMatch(/^Review of the changes \(checkpoint abcdef012345\): 2 comments\./);
    expect(message).toContain(`1. a.txt, line 1 ${STALE_NOTE}:\n`);
    expect(message).toContain('2. b.txt, line 5 (moved since: now from line 7):\n');
  });

  it('fences quoted lines that hold a fence of their own with a longer one', () => {
    const message = composeReviewMessage({
      commit: COMMIT,
      comments: [comment({ path: 'README.md', lines: ['```sh', 'ls', '```'] })],
    });
    expect(message).toContain('one comment');
    expect(message).toContain('\n````\n```sh\nls\n```\n````\nSay more.');
  });
});

describe('firstWords: a build named in a review’s heading', () => {
  it('keeps a short first line whole, and cuts a long or many-line message with "…"', () => {
    expect(firstWords('  Add a README ')).toBe('Add a README');
    expect(firstWords('Add a README\n\nWith a section on setup.')).toBe('Add a README…');
    expect(firstWords('one two three four five six seven eight nine ten')).toBe(
      'one two three four five six seven eight…',
    );
    expect(firstWords('x'.repeat(80))).toBe(`${'x'.repeat(60)}…`);
  });
});
