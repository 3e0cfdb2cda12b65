import { describe, expect, it } from 'vitest';
import { splitFileLines } from './review-lines.ts';
import { judgeStaleness } from './review-staleness.ts';

// A comment's lines against the file now: unchanged in place, moved unchanged (found once elsewhere), changed or
// gone (stale), ambiguous (found at several places: stale), and deleted lines (never stale).

const FILE = 'import x;\n\nfunction a() {\n  return 1;\n}\n';
const comment = { side: 'new' as const, startLine: 3, lines: ['function a() {', '  return 1;'] };

describe('judgeStaleness', () => {
  it('is current while the lines are where they were, unchanged', () => {
    expect(judgeStaleness(comment, splitFileLines(FILE))).toEqual({ isStale: false });
  });

  it('is stale once one of the lines changed', () => {
    const now = FILE.replace('return 1', 'return 2');
    expect(judgeStaleness(comment, splitFileLines(now))).toEqual({ isStale: true });
  });

  it('is not stale when the block moved unchanged, and says where it starts now', () => {
    const now = `// a header\n// of two lines\n${FILE}`;
    expect(judgeStaleness(comment, splitFileLines(now))).toEqual({ isStale: false, movedTo: 5 });
  });

  it('is stale when the block is found at several places: which one it was cannot be told', () => {
    const brace = { side: 'new' as const, startLine: 5, lines: ['}'] };
    const now = 'function a() {\n  return 2;\n}\nfunction b() {\n  return 3;\n}\n';
    expect(judgeStaleness(brace, splitFileLines(now))).toEqual({ isStale: true });
  });

  it('is stale when the file is gone, shorter, or no longer text', () => {
    expect(judgeStaleness(comment, undefined)).toEqual({ isStale: true });
    expect(judgeStaleness(comment, splitFileLines('import x;\n'))).toEqual({ isStale: true });
  });

  it('never marks deleted lines stale: nothing later changes what a build deleted', () => {
    expect(judgeStaleness({ ...comment, side: 'old' }, undefined)).toEqual({ isStale: false });
  });

  it('reads a CRLF file as the same lines', () => {
    expect(judgeStaleness(comment, splitFileLines(FILE.replace(/\n/g, '\r\n')))).toEqual({ isStale: false });
  });
});

describe('splitFileLines', () => {
  it('numbers lines as an editor does: no empty last line after a final line end', () => {
    expect(splitFileLines('')).toEqual([]);
    expect(splitFileLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitFileLines('a\nb')).toEqual(['a', 'b']);
    expect(splitFileLines('a\n\n')).toEqual(['a', '']);
  });
});
