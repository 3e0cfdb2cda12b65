import { invalidConfigError } from './ssh-config-errors.ts';
import { ACCUMULATING_OTHER_OPTIONS, classifyKeyword, type ResolvedKeyword } from './ssh-config-keywords.ts';
import type { SshConfigLine } from './ssh-config-lexer.ts';
import { addNote, type OptionState, type Sourced } from './ssh-config-options.ts';
import {
  isValidEnvName,
  readFlag,
  readInteger,
  readOnlyArg,
  readRawRest,
  readStrictHostKeyChecking,
  readTime,
} from './ssh-config-values.ts';
import { matchPatternList } from './ssh-patterns.ts';
import { expandPercentAndDollar } from './ssh-tokens.ts';
import { applyProxyJump } from './ssh-proxy-jump.ts';

/**
 * One option line applied to the gathered options, as readconf.c process_config_line_depth does: the value is
 * checked whether or not the line applies, and stored only if it applies and nothing was stored before.
 */

type Env = Readonly<Record<string, string | undefined>>;
type OptionKeyword = Exclude<ResolvedKeyword, 'host' | 'match' | 'include'>;
/** Whether the line applies (the value is checked either way), and the environment for IdentityAgent's check. */
export interface LineContext {
  readonly isActive: boolean;
  readonly env: Env;
}
type Handler = (state: OptionState, line: SshConfigLine, context: LineContext) => void;

/** ssh_config's caps on identity and certificate files (SSH_MAX_IDENTITY_FILES, SSH_MAX_CERTIFICATE_FILES). */
const MAX_KEY_FILES = 100;
/** SSH_MAX_HOSTS_FILES */
const MAX_HOSTS_FILES = 32;

type ScalarField = 'user' | 'hostKeyAlias' | 'ignoreUnknown';
function setFirst<K extends keyof OptionState>(state: OptionState, field: K, value: OptionState[K]): void {
  if (state[field] === undefined) state[field] = value;
}

const firstString =
  (field: ScalarField): Handler =>
  (state, line, { isActive }) => {
    const value = readOnlyArg(line);
    if (isActive) setFirst(state, field, value);
  };

function addKeyFile(list: Sourced[], line: SshConfigLine, isActive: boolean): void {
  const value = readOnlyArg(line);
  if (!isActive) return;
  if (list.length >= MAX_KEY_FILES) {
    throw invalidConfigError(line.at, `Too many ${line.keyword} entries specified (max ${MAX_KEY_FILES}).`);
  }
  if (!list.some((file) => file.value === value)) list.push({ value, at: line.at });
}

/** parse_char_array: several files on one line; only the line that finds the list empty fills it. */
function setFileList(list: Sourced[], line: SshConfigLine, isActive: boolean): void {
  const isEmpty = list.length === 0;
  line.args.forEach((arg, index) => {
    if (arg === '') throw invalidConfigError(line.at, `keyword ${line.keyword} empty argument`);
    if (arg.toLowerCase() === 'none' && (index > 0 || line.args.length > 1)) {
      throw invalidConfigError(line.at, `keyword ${line.keyword} "none" argument must appear alone.`);
    }
  });
  if (!isActive || !isEmpty) return;
  if (line.args.length > MAX_HOSTS_FILES)
    throw invalidConfigError(line.at, `too many ${line.keyword} entries.`);
  list.push(...line.args.map((value) => ({ value, at: line.at })));
}

/** IdentityAgent is checked as it is read: `${VAR}` must be set, a legacy `$VAR` well formed. */
function setIdentityAgent(state: OptionState, line: SshConfigLine, { isActive, env }: LineContext): void {
  const value = readOnlyArg(line);
  expandPercentAndDollar(value, { tokens: undefined, env }, line.at);
  if (value.startsWith('$') && !value.startsWith('${') && !isValidEnvName(value.slice(1))) {
    throw invalidConfigError(line.at, `Invalid environment name ${value}.`);
  }
  if (isActive) setFirst(state, 'identityAgent', { value, at: line.at });
}

function setProxyCommand(state: OptionState, line: SshConfigLine, { isActive }: LineContext): void {
  if (isActive) setFirst(state, 'proxyCommand', { value: readRawRest(line), at: line.at });
}

const HANDLERS: Readonly<Record<OptionKeyword, Handler>> = {
  hostname: (state, line, { isActive }) => {
    const value = readOnlyArg(line);
    if (isActive) setFirst(state, 'hostname', { value, at: line.at });
  },
  user: firstString('user'),
  hostkeyalias: firstString('hostKeyAlias'),
  ignoreunknown: firstString('ignoreUnknown'),
  port: (state, line, { isActive }) => {
    const value = readOnlyArg(line);
    const port = /^\d{1,5}$/.test(value) ? Number(value) : 0;
    if (port < 1 || port > 65_535) throw invalidConfigError(line.at, `Bad port '${value}'.`);
    if (isActive) setFirst(state, 'port', port);
  },
  identityfile: (state, line, { isActive }) => {
    addKeyFile(state.identityFiles, line, isActive);
  },
  certificatefile: (state, line, { isActive }) => {
    addKeyFile(state.certificateFiles, line, isActive);
  },
  identitiesonly: (state, line, { isActive }) => {
    const value = readFlag(line);
    if (isActive) setFirst(state, 'identitiesOnly', value);
  },
  identityagent: setIdentityAgent,
  proxycommand: setProxyCommand,
  proxyjump: (state, line, { isActive }) => {
    applyProxyJump(state, readRawRest(line), { isActive, at: line.at });
  },
  connecttimeout: (state, line, { isActive }) => {
    const value = readTime(line);
    if (isActive) setFirst(state, 'connectTimeout', value);
  },
  serveraliveinterval: (state, line, { isActive }) => {
    const value = readTime(line);
    if (isActive) setFirst(state, 'serverAliveInterval', value);
  },
  serveralivecountmax: (state, line, { isActive }) => {
    const value = readInteger(line);
    if (isActive) setFirst(state, 'serverAliveCountMax', value);
  },
  userknownhostsfile: (state, line, { isActive }) => {
    setFileList(state.userKnownHostsFiles, line, isActive);
  },
  globalknownhostsfile: (state, line, { isActive }) => {
    setFileList(state.globalKnownHostsFiles, line, isActive);
  },
  stricthostkeychecking: (state, line, { isActive }) => {
    const value = readStrictHostKeyChecking(line);
    if (isActive) setFirst(state, 'strictHostKeyChecking', value);
  },
};

function recordOther(state: OptionState, name: string, line: SshConfigLine): void {
  const isAccumulating = ACCUMULATING_OTHER_OPTIONS.has(name);
  if (isAccumulating || !state.others.some((other) => other.keyword === name)) {
    state.others.push({ keyword: name, written: line.written, value: line.rest, at: line.at });
  }
}

/** Applies one line other than Host, Match and Include. Throws SSH_CONFIG_INVALID as ssh would refuse it. */
export function applyOptionLine(state: OptionState, line: SshConfigLine, context: LineContext): void {
  const { isActive } = context;
  const keyword = classifyKeyword(line.keyword);
  switch (keyword.kind) {
    case 'resolved':
      if (keyword.name === 'host' || keyword.name === 'match' || keyword.name === 'include') {
        throw new Error(`${keyword.name} lines are not options`);
      }
      HANDLERS[keyword.name](state, line, context);
      return;
    case 'other':
      if (isActive) recordOther(state, keyword.name, line);
      return;
    case 'deprecated':
    case 'unsupported':
      if (isActive)
        addNote(state, { at: line.at, message: `${keyword.kind} option "${line.keyword}" is ignored` });
      return;
    case 'unknown':
      if (
        state.ignoreUnknown !== undefined &&
        matchPatternList(line.keyword, state.ignoreUnknown, true) === 1
      ) {
        return;
      }
      throw invalidConfigError(line.at, `Bad configuration option: ${line.keyword}`);
  }
}
