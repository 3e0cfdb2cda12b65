import { invalidConfigError } from './ssh-config-errors.ts';
import type { SshConfigLine } from './ssh-config-lexer.ts';

/** Readers for one option's arguments, with OpenSSH 9.2's checks and sentences (readconf.c, misc.c convtime). */

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';

/** The single argument of a one-argument option; ssh refuses a missing one and anything after it. */
export function readOnlyArg(line: SshConfigLine): string {
  const [first, ...extra] = line.args;
  if (first === undefined || first === '') throw invalidConfigError(line.at, 'Missing argument.');
  if (extra.length > 0)
    throw invalidConfigError(line.at, `keyword ${line.keyword} extra arguments at end of line`);
  return first;
}

/** The text after the keyword as ProxyCommand and ProxyJump take it: one more run of spaces and `=` skipped. */
export function readRawRest(line: SshConfigLine): string {
  return line.rest.replace(/^[ \t\r\n=]+/, '');
}

export function readFlag(line: SshConfigLine): boolean {
  const value = readOnlyArg(line).toLowerCase();
  if (value === 'yes' || value === 'true') return true;
  if (value === 'no' || value === 'false') return false;
  throw invalidConfigError(line.at, `unsupported option "${value}".`);
}

const STRICT_VALUES: Readonly<Record<string, StrictHostKeyChecking>> = {
  yes: 'yes',
  true: 'yes',
  no: 'no',
  false: 'no',
  off: 'no',
  ask: 'ask',
  'accept-new': 'accept-new',
};

export function readStrictHostKeyChecking(line: SshConfigLine): StrictHostKeyChecking {
  const value = readOnlyArg(line);
  const strict = STRICT_VALUES[value.toLowerCase()];
  if (strict === undefined) throw invalidConfigError(line.at, `unsupported option "${value}".`);
  return strict;
}

const INT_MAX = 2_147_483_647;
const TIME_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** misc.c convtime: "90", "1h30m", "2d"… in seconds; undefined when ssh would call it invalid. */
export function parseTime(text: string): number | undefined {
  if (text === '') return undefined;
  let total = 0;
  for (const part of text.matchAll(/(\d+)([a-zA-Z]?)|(.)/g)) {
    const [, digits, unit, stray] = part;
    const multiplier = TIME_UNITS[(unit ?? '').toLowerCase()];
    if (stray !== undefined || digits === undefined || multiplier === undefined) return undefined;
    const seconds = Number(digits) * multiplier;
    if (Number(digits) > INT_MAX || seconds > INT_MAX - total) return undefined;
    total += seconds;
  }
  return total;
}

/** parse_time: seconds, or undefined for `none` (which, as in ssh, leaves the option unset for later lines). */
export function readTime(line: SshConfigLine): number | undefined {
  const value = readOnlyArg(line);
  if (value === 'none') return undefined;
  const seconds = parseTime(value);
  if (seconds === undefined) throw invalidConfigError(line.at, 'invalid time value.');
  return seconds;
}

/** parse_int (atoi_err): a decimal integer from 0 to INT_MAX. */
export function readInteger(line: SshConfigLine): number {
  const value = readOnlyArg(line);
  const number = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(number <= INT_MAX)) throw invalidConfigError(line.at, `integer value ${value} is not valid.`);
  return number;
}

/** valid_env_name: letters, digits and `_`, at least one. */
export function isValidEnvName(name: string): boolean {
  return /^[A-Za-z0-9_]+$/.test(name);
}
