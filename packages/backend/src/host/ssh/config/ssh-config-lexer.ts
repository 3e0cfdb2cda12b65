import { invalidConfigError, type ConfigPosition } from './ssh-config-errors.ts';

/**
 * An ssh_config text split into lines the way OpenSSH 9.2 reads them (readconf.c process_config_line_depth, misc.c
 * strdelim and argv_split): the keyword is lowercased and may be followed by whitespace or one `=`; the arguments
 * honour "…" and '…' quoting and `\` escapes, and a `#` at the start of a word ends the line.
 */
export interface SshConfigLine {
  /** Lowercased, as OpenSSH compares keywords. */
  readonly keyword: string;
  /** The keyword as the file writes it (`ControlMaster`), for sentences. */
  readonly written: string;
  /** The words after the keyword, quotes and escapes removed, a trailing comment dropped. */
  readonly args: readonly string[];
  /** The text after the keyword and its separator, untouched: ProxyCommand, ProxyJump and Match read this. */
  readonly rest: string;
  readonly at: ConfigPosition;
}

const WHITESPACE = ' \t\r\n';
const TRAILING_SPACE = ' \t\r\n\f';

function spanOf(text: string, from: number, set: string): number {
  let index = from;
  while (index < text.length && set.includes(text.charAt(index))) index++;
  return index - from;
}

interface Word {
  readonly word: string;
  /** Where the next word starts; undefined once the text is used up (strdelim's NULL). */
  readonly next: number | undefined;
}

/** misc.c strdelim: the next word, ended by whitespace, a quote or a single `=`; undefined on an unclosed quote. */
function takeWord(text: string, from: number): Word | undefined {
  let end = from;
  while (end < text.length && !`${WHITESPACE}"=`.includes(text.charAt(end))) end++;
  if (end >= text.length) return { word: text.slice(from), next: undefined };
  if (text.charAt(end) === '"') {
    const close = text.indexOf('"', end + 1);
    if (close < 0) return undefined;
    const word = text.slice(from, end) + text.slice(end + 1, close);
    return { word, next: close + 1 + spanOf(text, close + 1, WHITESPACE) };
  }
  const isEquals = text.charAt(end) === '=';
  let next = end + 1 + spanOf(text, end + 1, WHITESPACE);
  if (!isEquals && text.charAt(next) === '=') next = next + 1 + spanOf(text, next + 1, WHITESPACE);
  return { word: text.slice(from, end), next };
}

/** The words of a Match line as match_cfg_line reads them: strdelim until the text or a word runs out. */
export function splitMatchWords(rest: string): string[] {
  const words: string[] = [];
  let from: number | undefined = 0;
  while (from !== undefined) {
    const taken = takeWord(rest, from);
    if (taken === undefined || taken.word === '') break;
    words.push(taken.word);
    from = taken.next;
  }
  return words;
}

/** misc.c argv_split with terminate_on_comment: undefined when a quote is left open. */
export function splitArgs(text: string): string[] | undefined {
  const args: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const start = text.charAt(i);
    if (start === ' ' || start === '\t') continue;
    if (start === '#') break;
    let quote = '';
    let arg = '';
    for (; i < text.length; i++) {
      const char = text.charAt(i);
      const after = text.charAt(i + 1);
      if (char === '\\') {
        const isEscape = after === "'" || after === '"' || after === '\\' || (quote === '' && after === ' ');
        if (isEscape) i++;
        arg += isEscape ? after : char;
      } else if (quote === '' && (char === ' ' || char === '\t')) break;
      else if (quote === '' && (char === '"' || char === "'")) quote = char;
      else if (quote !== '' && char === quote) quote = '';
      else arg += char;
    }
    args.push(arg);
    if (i >= text.length && quote !== '') return undefined;
  }
  return args;
}

function trimTrailingSpace(text: string): string {
  // OpenSSH's loop never strips the first character, so a lone space survives (and then reads as empty).
  let end = text.length;
  while (end > 1 && TRAILING_SPACE.includes(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** The keyword and the raw rest of one line, or undefined for a blank or comment line. */
function takeKeyword(text: string): { keyword: string; written: string; rest: string } | undefined {
  let taken = takeWord(text, 0);
  if (taken?.word === '') taken = taken.next === undefined ? undefined : takeWord(text, taken.next);
  if (taken === undefined || taken.word === '' || taken.word.startsWith('#')) return undefined;
  const from = taken.next ?? text.length;
  const rest = text.slice(from + spanOf(text, from, WHITESPACE));
  return { keyword: taken.word.toLowerCase(), written: taken.word, rest };
}

/** Lexes one line; undefined for blank and comment lines. Throws SSH_CONFIG_INVALID naming file:line. */
export function lexSshConfigLine(text: string, at: ConfigPosition): SshConfigLine | undefined {
  const taken = takeKeyword(trimTrailingSpace(text));
  if (taken === undefined) return undefined;
  if (taken.rest === '') throw invalidConfigError(at, `no argument after keyword "${taken.keyword}"`);
  const args = splitArgs(taken.rest);
  if (args === undefined) throw invalidConfigError(at, 'invalid quotes');
  return { keyword: taken.keyword, written: taken.written, args, rest: taken.rest, at };
}

/** Lexes a whole file; line numbers count from 1 like OpenSSH's messages. */
export function lexSshConfig(text: string, file: string): SshConfigLine[] {
  const lines: SshConfigLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = lexSshConfigLine(raw, { file, line: index + 1 });
    if (line !== undefined) lines.push(line);
  });
  return lines;
}
