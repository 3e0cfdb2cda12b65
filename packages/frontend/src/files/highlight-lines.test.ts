import { describe, expect, it } from 'vitest';
import { highlightLines, languageOf } from './highlight-lines.ts';

// A file's text cut into lines for the viewer: a highlighted span that runs over several lines (a block comment)
// is cut at each newline, every piece keeping its classes; a final newline starts no line; unknown kinds are plain.

describe('languageOf', () => {
  it('knows a file by its extension or its name, and leaves the rest plain', () => {
    expect(languageOf('src/app.ts')).toBe('ts');
    expect(languageOf('web/index.HTML')).toBe('html');
    expect(languageOf('Makefile')).toBe('makefile');
    expect(languageOf('notes.unknownext')).toBeUndefined();
    expect(languageOf('.gitignore')).toBeUndefined();
    expect(languageOf('LICENSE')).toBeUndefined();
  });
});

describe('highlightLines', () => {
  it('cuts spans over several lines at each newline, keeping their classes', () => {
    const lines = highlightLines('/* one\n   two */\nlet x = 1;\n', 'ts');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual([{ text: '/* one', classNames: ['hljs-comment'] }]);
    expect(lines[1]).toEqual([{ text: '   two */', classNames: ['hljs-comment'] }]);
    expect(lines[2]?.map((token) => token.text).join('')).toBe('let x = 1;');
    expect(lines[2]?.[0]).toEqual({ text: 'let', classNames: ['hljs-keyword'] });
  });

  it('keeps nested spans’ classes outermost first', () => {
    const [line] = highlightLines('<a href="x">', 'html');
    expect(line?.find((token) => token.text === 'href')?.classNames).toEqual(['hljs-tag', 'hljs-attr']);
  });

  it('shows text of no known kind plain, empty lines kept', () => {
    expect(highlightLines('a\n\nb', undefined)).toEqual([
      [{ text: 'a', classNames: [] }],
      [],
      [{ text: 'b', classNames: [] }],
    ]);
  });
});
