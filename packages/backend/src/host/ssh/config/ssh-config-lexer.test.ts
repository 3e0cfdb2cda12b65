import { describe, expect, it } from 'vitest';
import { captureCatalystError } from '../../../core/capture-error.ts';
import { lexSshConfig, lexSshConfigLine, splitArgs, splitMatchWords } from './ssh-config-lexer.ts';

const AT = { file: '/home/a/.ssh/config', line: 7 };

function lex(text: string) {
  const line = lexSshConfigLine(text, AT);
  return line === undefined ? undefined : { keyword: line.keyword, args: line.args, rest: line.rest };
}

describe('lexSshConfigLine', () => {
  it('lowercases the keyword and takes whitespace or one = before the arguments', () => {
    expect(lex('  Port 2201')).toEqual({ keyword: 'port', args: ['2201'], rest: '2201' });
    expect(lex('Port=2201')).toEqual({ keyword: 'port', args: ['2201'], rest: '2201' });
    expect(lex('HostName = web.internal  ')).toEqual({
      keyword: 'hostname',
      args: ['web.internal'],
      rest: 'web.internal',
    });
    expect(lex('\tUSER\t=\tbob\r')).toEqual({ keyword: 'user', args: ['bob'], rest: 'bob' });
  });

  it('skips blank and comment lines, and drops a comment that starts a word', () => {
    expect(lex('')).toBeUndefined();
    expect(lex('   ')).toBeUndefined();
    expect(lex('# Host web')).toBeUndefined();
    expect(lex('  #Port 22')).toBeUndefined();
    expect(lex('Port 22 # the default')?.args).toEqual(['22']);
    expect(lex('IdentityFile ~/.ssh/a#b')?.args).toEqual(['~/.ssh/a#b']);
  });

  it('keeps the raw rest for ProxyCommand, quotes and comments included', () => {
    expect(lex('ProxyCommand nc "%h" %p # via nc')?.rest).toBe('nc "%h" %p # via nc');
  });

  it('refuses a keyword without an argument and an open quote, naming file and line', () => {
    const missing = captureCatalystError(() => lexSshConfigLine('Port', AT));
    expect(missing.code).toBe('SSH_CONFIG_INVALID');
    expect(missing.message).toBe('/home/a/.ssh/config line 7: no argument after keyword "port"');
    expect(missing.details).toEqual({ file: AT.file, line: 7 });
    expect(captureCatalystError(() => lexSshConfigLine('IdentityFile "/a b', AT)).message).toContain(
      'line 7: invalid quotes',
    );
  });

  it('numbers lines from 1 across a file', () => {
    const lines = lexSshConfig('# c\nHost web\n\n  Port 2\n', 'f');
    expect(lines.map((line) => [line.keyword, line.at.line])).toEqual([
      ['host', 2],
      ['port', 4],
    ]);
  });
});

describe('splitArgs (argv_split)', () => {
  it('handles double and single quotes, joined to the word around them', () => {
    expect(splitArgs('"/srv/with space/id"')).toEqual(['/srv/with space/id']);
    expect(splitArgs("a'b c'd e")).toEqual(['ab cd', 'e']);
    expect(splitArgs('"" x')).toEqual(['', 'x']);
  });

  it('unescapes \\\\, \\", \\\' and an unquoted \\space, keeping other backslashes', () => {
    expect(splitArgs('a\\ b c\\"d \\\\ e\\x')).toEqual(['a b', 'c"d', '\\', 'e\\x']);
    expect(splitArgs('"a\\ b"')).toEqual(['a\\ b']);
  });

  it('says undefined for an open quote', () => {
    expect(splitArgs("'abc")).toBeUndefined();
  });
});

describe('splitMatchWords (strdelim)', () => {
  it('splits on whitespace and one =, and takes "…" words', () => {
    expect(splitMatchWords('host=*.internal user "bob smith"')).toEqual([
      'host',
      '*.internal',
      'user',
      'bob smith',
    ]);
    expect(splitMatchWords('all')).toEqual(['all']);
  });
});
