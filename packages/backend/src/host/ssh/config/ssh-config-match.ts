import { invalidConfigError, unsupportedConfigError } from './ssh-config-errors.ts';
import { splitMatchWords, type SshConfigLine } from './ssh-config-lexer.ts';
import { addNote, type OptionState } from './ssh-config-options.ts';
import type { SshConfigSources } from './ssh-config-sources.ts';
import { matchHostname, matchPattern, matchPatternList } from './ssh-patterns.ts';
import { completeTokenValues, expandOptionValue, expandPercentAndDollar } from './ssh-tokens.ts';

/** Whether a Host or Match line turns the lines after it on (readconf.c oHost and match_cfg_line). */

export interface MatchContext {
  /** What Host patterns see: the name as typed, or in the final pass the final HostName. */
  readonly host: string;
  readonly originalHost: string;
  readonly isFinalPass: boolean;
  readonly state: OptionState;
  readonly sources: SshConfigSources;
}

/** `Host` words are matched case-sensitively, one by one; a matching `!pattern` turns the whole line off. */
export function matchHostLine(line: SshConfigLine, host: string, isNeverMatch: boolean): boolean {
  let isMatch = false;
  for (const arg of line.args) {
    if (arg === '') throw invalidConfigError(line.at, 'keyword host empty argument');
    if (isNeverMatch) return false;
    const isNegated = arg.startsWith('!');
    if (matchPattern(host, isNegated ? arg.slice(1) : arg)) {
      if (isNegated) return false;
      isMatch = true;
    }
  }
  return isMatch;
}

/** Criteria of later OpenSSH releases: 9.2 refuses them; Catalyst notes them and treats the block as not matching. */
const NEWER_CRITERIA = new Set(['localnetwork', 'tagged', 'command', 'sessiontype', 'version']);

interface MatchResult {
  readonly isMatch: boolean;
  /** A `final` criterion was seen: ssh reads the files again once HostName is known. */
  readonly wantsFinalPass: boolean;
}

/** Evaluates a Match line: criteria ANDed, each negatable; `all` alone (or after canonical/final). */
export async function evaluateMatchLine(line: SshConfigLine, context: MatchContext): Promise<MatchResult> {
  const words = splitMatchWords(line.rest);
  let isMatch = true;
  let wantsFinalPass = false;
  let attributes = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word.startsWith('#')) break;
    const isNegated = word.startsWith('!');
    const criterion = (isNegated ? word.slice(1) : word).toLowerCase();
    if (criterion === 'all') {
      const next = words[i + 1];
      if (attributes > 1 || (next !== undefined && !next.startsWith('#'))) {
        throw invalidConfigError(line.at, `'${word}' cannot be combined with other Match attributes`);
      }
      return { isMatch: isMatch && !isNegated, wantsFinalPass };
    }
    attributes++;
    if (criterion === 'canonical' || criterion === 'final') {
      wantsFinalPass ||= criterion === 'final';
      // In 9.2 both match only in the second pass (which canonicalization or a `final` asks for).
      if (context.isFinalPass === isNegated) isMatch = false;
      continue;
    }
    const arg = words[++i];
    if (arg === undefined || arg === '' || arg.startsWith('#')) {
      throw invalidConfigError(line.at, `Missing Match criteria for ${criterion}`);
    }
    const matched = await evaluateCriterion({ line, criterion, arg, isMatchSoFar: isMatch }, context);
    if (matched === undefined) isMatch = false;
    else if (matched === isNegated) isMatch = false;
  }
  if (attributes === 0) throw invalidConfigError(line.at, 'One or more attributes required for Match');
  return { isMatch, wantsFinalPass };
}

interface Criterion {
  readonly line: SshConfigLine;
  readonly criterion: string;
  readonly arg: string;
  readonly isMatchSoFar: boolean;
}

/** One criterion with its argument; undefined for one Catalyst cannot evaluate (noted). */
async function evaluateCriterion(criterion: Criterion, context: MatchContext): Promise<boolean | undefined> {
  const { line, arg } = criterion;
  const localUser = context.sources.localUser.name;
  switch (criterion.criterion) {
    case 'host':
      return matchHostname(matchHost(context, line), arg) === 1;
    case 'originalhost':
      return matchHostname(context.originalHost, arg) === 1;
    case 'user':
      return matchPatternList(context.state.user ?? localUser, arg) === 1;
    case 'localuser':
      return matchPatternList(localUser, arg) === 1;
    case 'exec':
      return runExec(criterion, context);
  }
  if (!NEWER_CRITERIA.has(criterion.criterion)) {
    throw invalidConfigError(line.at, `Unsupported Match attribute ${criterion.criterion}`);
  }
  const message = `Match ${criterion.criterion} is not in OpenSSH 9.2; the block is treated as not matching`;
  addNote(context.state, { at: line.at, message });
  return undefined;
}

/** `Match host` sees HostName (its %h expanded) once a line above set it, else the name given. */
function matchHost(context: MatchContext, line: SshConfigLine): string {
  const hostname = context.state.hostname;
  if (hostname === undefined) return context.host;
  if (context.isFinalPass) return hostname.value;
  return expandPercentAndDollar(
    hostname.value,
    { tokens: { h: context.host }, env: undefined },
    hostname.at ?? line.at,
  );
}

async function runExec(criterion: Criterion, context: MatchContext): Promise<boolean> {
  // ssh skips the command once an earlier criterion failed, so such a line needs no opt-in.
  if (!criterion.isMatchSoFar) return false;
  const { sources, state } = context;
  const host = matchHost(context, criterion.line);
  const tokens = completeTokenValues({
    d: sources.localUser.home,
    h: host,
    i: String(sources.localUser.uid),
    k: state.hostKeyAlias ?? host,
    l: sources.localHostname,
    n: context.originalHost,
    p: String(state.port ?? 22),
    r: state.user ?? sources.localUser.name,
    u: sources.localUser.name,
  });
  const at = criterion.line.at;
  const command = expandOptionValue('matchexec', criterion.arg, {
    tokens,
    env: {},
    localUser: sources.localUser,
    at,
  });
  if (sources.runMatchExec === undefined) {
    throw unsupportedConfigError(
      at,
      `Match exec would run "${command}"; running commands from the config is off`,
    );
  }
  return sources.runMatchExec(command);
}
