import { createHash } from 'node:crypto';
import { invalidConfigError, unsupportedConfigError, type ConfigPosition } from './ssh-config-errors.ts';

/**
 * ssh_config's `%` tokens, `${VAR}` and `~`, as OpenSSH 9.2 expands them (misc.c vdollar_percent_expand and
 * tilde_expand, ssh.c, sshconnect.c expand_proxy_command; ssh_config(5) TOKENS).
 */

export type TokenName = 'C' | 'L' | 'd' | 'h' | 'i' | 'k' | 'l' | 'n' | 'p' | 'r' | 'u';
export type TokenValues = Readonly<Record<TokenName, string>>;

interface ExpansionRule {
  readonly tokens: readonly TokenName[];
  readonly hasEnv: boolean;
  readonly hasTilde: boolean;
}

const ALL_TOKENS: readonly TokenName[] = ['C', 'L', 'd', 'h', 'i', 'k', 'l', 'n', 'p', 'r', 'u'];
const PATH_RULE: ExpansionRule = { tokens: ALL_TOKENS, hasEnv: true, hasTilde: true };

/** Which tokens each option takes in 9.2. `%j` and `User` expansion are 10.x, so absent here. */
export const EXPANSION_RULES = {
  certificatefile: PATH_RULE,
  controlpath: PATH_RULE,
  identityagent: PATH_RULE,
  identityfile: PATH_RULE,
  userknownhostsfile: PATH_RULE,
  // Forward socket paths, RemoteCommand and Match exec take every token but neither `~` nor `${}`.
  localforward: { tokens: ALL_TOKENS, hasEnv: false, hasTilde: false },
  remoteforward: { tokens: ALL_TOKENS, hasEnv: false, hasTilde: false },
  remotecommand: { tokens: ALL_TOKENS, hasEnv: false, hasTilde: false },
  matchexec: { tokens: ALL_TOKENS, hasEnv: false, hasTilde: false },
  hostname: { tokens: ['h'], hasEnv: false, hasTilde: false },
  // The shell expands `$VAR` in a ProxyCommand; `%k` is accepted in code though the manual omits it.
  proxycommand: { tokens: ['h', 'k', 'n', 'p', 'r'], hasEnv: false, hasTilde: false },
  // Only `~` (tilde_expand_paths): no tokens at all.
  globalknownhostsfile: { tokens: [], hasEnv: false, hasTilde: true },
} as const satisfies Record<string, ExpansionRule>;
export type ExpandableOption = keyof typeof EXPANSION_RULES;

export interface ExpansionContext {
  readonly tokens: Partial<TokenValues>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The password database's home and name (getpwuid), which `~` means; not $HOME. */
  readonly localUser: { readonly name: string; readonly home: string };
  readonly at: ConfigPosition | undefined;
}

/** Expands one option's value by its rule; throws SSH_CONFIG_INVALID for an unknown `%x` or an unset `${VAR}`. */
export function expandOptionValue(
  option: ExpandableOption,
  value: string,
  context: ExpansionContext,
): string {
  const rule: ExpansionRule = EXPANSION_RULES[option];
  const afterTilde = rule.hasTilde ? expandTilde(value, context) : value;
  const allowed: Partial<Record<string, string>> = {};
  for (const name of rule.tokens) allowed[name] = context.tokens[name];
  return expandPercentAndDollar(
    afterTilde,
    { tokens: allowed, env: rule.hasEnv ? context.env : undefined },
    context.at,
  );
}

interface PercentDollar {
  /** The tokens this option accepts (a listed token without a value is a bug); undefined copies `%` as is. */
  readonly tokens: Partial<Record<string, string>> | undefined;
  /** Undefined when `${…}` is left alone (copied as is). */
  readonly env: Readonly<Record<string, string | undefined>> | undefined;
}

/** vdollar_percent_expand: `%%` is `%`, `%x` must be an accepted token, `${NAME}` must be set. */
export function expandPercentAndDollar(
  text: string,
  rule: PercentDollar,
  at: ConfigPosition | undefined,
): string {
  const fail = (sentence: string) => invalidConfigError(at, sentence);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (rule.env !== undefined && char === '$' && text.charAt(i + 1) === '{') {
      const end = text.indexOf('}', i + 2);
      if (end < 0) throw fail(`environment variable "${text.slice(i)}" is missing its closing "}"`);
      out += readEnv(text.slice(i + 2, end), rule.env, fail);
      i = end;
    } else if (char !== '%' || rule.tokens === undefined) {
      out += char;
    } else {
      const key = text.charAt(++i);
      if (key === '') throw fail(`"${text}" ends with a lone %`);
      if (key !== '%' && !Object.hasOwn(rule.tokens, key)) throw fail(`unknown token %${key} in "${text}"`);
      out += key === '%' ? '%' : valueOf(rule.tokens, key);
    }
  }
  return out;
}

function readEnv(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  fail: (sentence: string) => Error,
): string {
  if (name === '') throw fail('zero-length environment variable "${}"');
  const value = env[name];
  if (value === undefined) throw fail(`environment variable \${${name}} has no value`);
  return value;
}

function valueOf(tokens: Partial<Record<string, string>>, key: string): string {
  const value = tokens[key];
  if (value === undefined) throw new Error(`token %${key} accepted without a value`);
  return value;
}

/** misc.c tilde_expand: `~` and `~/…` are the local user's home; `~name` only when name is the local user. */
export function expandTilde(path: string, context: Omit<ExpansionContext, 'tokens' | 'env'>): string {
  if (!path.startsWith('~')) return path;
  const body = path.slice(1);
  const slash = body.indexOf('/');
  const name = slash < 0 ? body : body.slice(0, slash);
  const tail = slash < 0 ? '' : body.slice(slash + 1).replace(/^\/+/, '');
  if (name !== '' && name !== context.localUser.name) {
    // getpwnam of another account: its home is not ours to guess.
    throw unsupportedConfigError(
      context.at,
      `"${path}" names another user's home, which Catalyst does not look up`,
    );
  }
  const home = context.localUser.home;
  return `${home}${home.endsWith('/') ? '' : '/'}${tail}`;
}

/** `%C`: the hex SHA-1 of %l%h%p%r (readconf.c ssh_connection_hash; 10.x adds %j). */
export function hashConnection(parts: { local: string; host: string; port: string; user: string }): string {
  return createHash('sha1').update(`${parts.local}${parts.host}${parts.port}${parts.user}`).digest('hex');
}

/** Every token's value for one connection, as ssh.c fills its ssh_conn_info. */
export function completeTokenValues(values: Omit<TokenValues, 'C' | 'L'>): TokenValues {
  const short = values.l.split('.')[0] ?? values.l;
  const hash = hashConnection({ local: values.l, host: values.h, port: values.p, user: values.r });
  return { ...values, C: hash, L: short };
}
