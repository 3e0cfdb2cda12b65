import { describe, expect, it } from 'vitest';
import { captureCatalystError } from './capture-error.ts';
import {
  MAX_WRAPPED_COMMAND_BYTES,
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

describe('wrapForAnyLoginShell', () => {
  it('embeds the UTF-8 script as base64 in the fixed sh wrapper', () => {
    const script = "echo 'héllo 🎉'\n";
    const wrapped = wrapForAnyLoginShell(script);
    const match = /^exec \/bin\/sh -c 'eval "\$\(echo ([A-Za-z0-9+/=]+) \| base64 -d\)"'$/.exec(wrapped);
    expect(match).not.toBeNull();
    expect(Buffer.from(match?.[1] ?? '', 'base64').toString('utf8')).toBe(script);
  });

  it('accepts a script right up to the limit and rejects one byte more of base64', () => {
    const overhead = wrapForAnyLoginShell('').length;
    // base64 grows in steps of 4 characters per 3 bytes, so this is the largest script that fits.
    const maxScriptBytes = Math.floor((MAX_WRAPPED_COMMAND_BYTES - overhead) / 4) * 3;
    const atLimit = wrapForAnyLoginShell('x'.repeat(maxScriptBytes));
    expect(atLimit.length).toBeLessThanOrEqual(MAX_WRAPPED_COMMAND_BYTES);
    expect(atLimit.length).toBeGreaterThan(MAX_WRAPPED_COMMAND_BYTES - 4);

    const error = captureCatalystError(() => wrapForAnyLoginShell('x'.repeat(maxScriptBytes + 1)));
    expect(error.code).toBe('COMMAND_TOO_LONG');
    expect(error.details).toMatchObject({ reason: 'too-long', limit: MAX_WRAPPED_COMMAND_BYTES });
    expect(error.message).toMatch(/limit/);
  });

  it('counts UTF-8 bytes, not UTF-16 code units', () => {
    // 4 UTF-8 bytes per emoji: 30,000 emoji are 120,000 bytes, far over the limit though only 60,000 code units.
    expect(captureCatalystError(() => wrapForAnyLoginShell('🎉'.repeat(30_000))).code).toBe(
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
