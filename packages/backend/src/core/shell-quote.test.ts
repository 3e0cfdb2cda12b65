import { describe, expect, it } from 'vitest';
import { captureCatalystError } from './capture-error.ts';
import {
  MAX_WRAPPED_COMMAND_BYTES,
  createShellCall,
  quoteForAnyShell,
  quoteShellArg,
  renderShellCommand,
  wrapForAnyLoginShell,
} from './shell-quote.ts';

describe('quoteShellArg', () => {
  it.each([
    ['', "''"],
    ['plain', "'plain'"],
    ["it's", `'it'\\''s'`],
    ["'", `''\\'''`],
    ["''", `''\\'''\\'''`],
    ['$HOME', "'$HOME'"],
    ['`id`', "'`id`'"],
    ['$(id)', "'$(id)'"],
    ['x\\y', "'x\\y'"],
    ['\\', "'\\'"],
    ['a\nb', "'a\nb'"],
    ['a\tb\r', "'a\tb\r'"],
    ['!*~;|&<>(){}[]%#', "'!*~;|&<>(){}[]%#'"],
    ['"double"', `'"double"'`],
    ['héllo 🎉 e\u0301', "'héllo 🎉 e\u0301'"],
  ])('quotes %j as %s', (input, expected) => {
    expect(quoteShellArg(input)).toBe(expected);
  });

  it('rejects a NUL byte with UNSAFE_ARGUMENT', () => {
    const error = captureCatalystError(() => quoteShellArg('a\0b'));
    expect(error.code).toBe('UNSAFE_ARGUMENT');
    expect(error.message).toMatch(/NUL/);
  });

  it('rejects a lone surrogate, which has no UTF-8 encoding', () => {
    expect(captureCatalystError(() => quoteShellArg('x\uD83Dy')).code).toBe('UNSAFE_ARGUMENT');
    expect(captureCatalystError(() => quoteShellArg('\uDE00')).code).toBe('UNSAFE_ARGUMENT');
  });
});

describe('renderShellCommand', () => {
  it('quotes every word, the program included', () => {
    expect(renderShellCommand(['/usr/bin/printf', '%s\\n', "it's", ''])).toBe(
      `'/usr/bin/printf' '%s\\n' 'it'\\''s' ''`,
    );
  });

  it('rejects an empty argv', () => {
    expect(captureCatalystError(() => renderShellCommand([])).code).toBe('INVALID_ARGUMENT');
  });

  it('rejects a NUL in any word', () => {
    expect(captureCatalystError(() => renderShellCommand(['echo', 'ok', 'b\0d'])).code).toBe(
      'UNSAFE_ARGUMENT',
    );
  });
});

describe('quoteForAnyShell', () => {
  it.each([
    ['', "''"],
    ['plain', "'plain'"],
    ["it's", `'it'"'"'s'`],
    ["''", `"''"`],
    ['\\', `"\\\\"`],
    ["a\\'b", `'a'"\\\\'"'b'`],
    ['$(id) `id` "x"', `'$(id) \`id\` "x"'`],
    ['a\nb', "'a\nb'"],
  ])('quotes %j as %s', (input, expected) => {
    expect(quoteForAnyShell(input)).toBe(expected);
  });
});

describe('wrapForAnyLoginShell', () => {
  it('execs /bin/sh with the script, its name and its arguments, each a word of its own', () => {
    expect(wrapForAnyLoginShell("echo 'héllo 🎉'\n")).toBe(
      `exec /bin/sh -c 'echo '"'"'héllo 🎉'"'"'\n' 'sh'`,
    );
    expect(wrapForAnyLoginShell(createShellCall('echo "$1"', 'nm', ['a b', '']))).toBe(
      `exec /bin/sh -c 'echo "$1"' 'nm' 'a b' ''`,
    );
  });

  it('accepts a script right up to the limit and rejects one byte more', () => {
    const overhead = wrapForAnyLoginShell('').length;
    const atLimit = wrapForAnyLoginShell('x'.repeat(MAX_WRAPPED_COMMAND_BYTES - overhead));
    expect(atLimit.length).toBe(MAX_WRAPPED_COMMAND_BYTES);

    const error = captureCatalystError(() =>
      wrapForAnyLoginShell('x'.repeat(MAX_WRAPPED_COMMAND_BYTES - overhead + 1)),
    );
    expect(error.code).toBe('COMMAND_TOO_LONG');
    expect(error.details).toMatchObject({ reason: 'too-long', limit: MAX_WRAPPED_COMMAND_BYTES });
    expect(error.message).toMatch(/limit/);
  });

  it('counts UTF-8 bytes, not UTF-16 code units', () => {
    // 4 UTF-8 bytes per emoji: 25,000 emoji are 100,000 bytes, over the limit though only 50,000 code units.
    expect(captureCatalystError(() => wrapForAnyLoginShell('🎉'.repeat(25_000))).code).toBe(
      'COMMAND_TOO_LONG',
    );
  });

  it('keeps the limit well under MAX_ARG_STRLEN (128 KiB)', () => {
    expect(MAX_WRAPPED_COMMAND_BYTES).toBeLessThan(128 * 1024);
  });

  it('rejects a script containing NUL', () => {
    expect(captureCatalystError(() => wrapForAnyLoginShell('echo a\0b')).code).toBe('UNSAFE_ARGUMENT');
  });
});
