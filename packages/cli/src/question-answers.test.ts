import { describe, expect, it } from 'vitest';
import { parseTypedAnswer, parseYesNo } from './question-answers.ts';

const single = {
  question: 'Which color?',
  header: 'Color',
  multiSelect: false,
  options: [
    { label: 'Red', description: '' },
    { label: 'Blue', description: '' },
    { label: 'Green', description: '' },
  ],
};
const multi = { ...single, multiSelect: true };

describe('parseTypedAnswer', () => {
  it('takes an option by its number, or the person’s own words', () => {
    expect(parseTypedAnswer(' 2 ', single)).toEqual({ ok: true, answer: 'Blue' });
    expect(parseTypedAnswer('Purple, please', single)).toEqual({ ok: true, answer: 'Purple, please' });
  });

  it('takes several numbers for a multi-select, once each and in the order typed', () => {
    expect(parseTypedAnswer('3, 1,3', multi)).toEqual({ ok: true, answer: ['Green', 'Red'] });
  });

  it('asks again for nothing, a number out of range, or several numbers for a single choice', () => {
    expect(parseTypedAnswer('  ', single).ok).toBe(false);
    expect(parseTypedAnswer('4', single)).toEqual({ ok: false, problem: 'Choose between 1 and 3.' });
    expect(parseTypedAnswer('0', multi).ok).toBe(false);
    expect(parseTypedAnswer('1,2', single)).toEqual({ ok: false, problem: 'Choose one option.' });
  });

  it('reads a number as words when there are no options to choose from', () => {
    expect(parseTypedAnswer('42', { ...single, options: [] })).toEqual({ ok: true, answer: '42' });
  });
});

describe('parseYesNo', () => {
  it('knows y, yes, n and no, in any case, and nothing else', () => {
    expect([parseYesNo('Y'), parseYesNo('yes '), parseYesNo('n'), parseYesNo('NO')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(parseYesNo('maybe')).toBeUndefined();
  });
});
