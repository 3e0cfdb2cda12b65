import { invalidConfigError, unsupportedConfigError, type ConfigPosition } from './ssh-config-errors.ts';
import { lexSshConfig, type SshConfigLine } from './ssh-config-lexer.ts';
import type { SshConfigSources } from './ssh-config-sources.ts';
import { expandTilde } from './ssh-tokens.ts';

/**
 * Reads a config file and, recursively, every file its Include lines name. What gets included does not depend on
 * which Host/Match blocks apply (ssh parses includes in inactive blocks too, for errors), so the whole tree is read
 * once and then walked for each pass.
 */

export interface LoadedConfigFile {
  readonly path: string;
  readonly entries: readonly ConfigEntry[];
}
export type ConfigEntry =
  | { readonly kind: 'line'; readonly line: SshConfigLine }
  | { readonly kind: 'include'; readonly line: SshConfigLine; readonly files: readonly LoadedConfigFile[] };

/** readconf.c READCONF_MAX_DEPTH: the config itself is depth 0. */
const MAX_INCLUDE_DEPTH = 16;
const USER_CONFIG_DIR = '~/.ssh/';
const SYSTEM_CONFIG_DIR = '/etc/ssh/';
export const SYSTEM_CONFIG_FILE = '/etc/ssh/ssh_config';

interface LoadRequest {
  readonly path: string;
  /** A user config may Include `~/…`, and its relative paths are under ~/.ssh; a system one's under /etc/ssh. */
  readonly isUserConfig: boolean;
  readonly checksPermissions: boolean;
  readonly depth: number;
  readonly includedFrom: ConfigPosition | undefined;
}

/** Which files ssh reads: `-F file` (which must exist), or ~/.ssh/config (if any) then /etc/ssh/ssh_config. */
export async function loadSshConfigFiles(
  sources: SshConfigSources,
  configFile: string | undefined,
): Promise<LoadedConfigFile[]> {
  const base = { depth: 0, includedFrom: undefined, isUserConfig: true };
  if (configFile !== undefined) {
    if (configFile.toLowerCase() === 'none') return [];
    const path = expandTilde(configFile, { localUser: sources.localUser, at: undefined });
    const file = await loadConfigFile(sources, { ...base, path, checksPermissions: false });
    if (file === undefined) throw invalidConfigError(undefined, `Can't open user config file ${path}`);
    return [file];
  }
  const userPath = `${sources.localUser.home.replace(/\/$/, '')}/.ssh/config`;
  const user = await loadConfigFile(sources, { ...base, path: userPath, checksPermissions: true });
  const system = await loadConfigFile(sources, {
    ...base,
    path: SYSTEM_CONFIG_FILE,
    isUserConfig: false,
    checksPermissions: false,
  });
  return [user, system].filter((file) => file !== undefined);
}

async function loadConfigFile(
  sources: SshConfigSources,
  request: LoadRequest,
): Promise<LoadedConfigFile | undefined> {
  if (request.depth > MAX_INCLUDE_DEPTH) {
    throw invalidConfigError(request.includedFrom, 'Too many recursive configuration includes');
  }
  const text = await sources.readFile(request.path);
  if (text === undefined) return undefined;
  if (request.checksPermissions) await checkPermissions(sources, request);
  const entries: ConfigEntry[] = [];
  for (const line of lexSshConfig(text, request.path)) {
    if (line.keyword !== 'include') entries.push({ kind: 'line', line });
    else entries.push({ kind: 'include', line, files: await loadIncludes(sources, line, request) });
  }
  return { path: request.path, entries };
}

async function checkPermissions(sources: SshConfigSources, request: LoadRequest): Promise<void> {
  const { uid, mode } = await sources.stat(request.path);
  if ((uid !== 0 && uid !== sources.localUser.uid) || (mode & 0o022) !== 0) {
    // Someone else could write lines (a ProxyCommand) into it, so ssh refuses the whole config. Debian's ssh also
    // accepts a group-writable file whose group has the owner as only member; that needs the group database, so
    // Catalyst keeps upstream's stricter rule.
    throw invalidConfigError(request.includedFrom, `Bad owner or permissions on ${request.path}`);
  }
}

async function loadIncludes(
  sources: SshConfigSources,
  line: SshConfigLine,
  parent: LoadRequest,
): Promise<LoadedConfigFile[]> {
  const files: LoadedConfigFile[] = [];
  for (const arg of line.args) {
    const pattern = includePattern(sources, arg, { at: line.at, isUserConfig: parent.isUserConfig });
    for (const path of await sources.glob(pattern)) {
      const request = {
        ...parent,
        path,
        checksPermissions: true,
        depth: parent.depth + 1,
        includedFrom: line.at,
      };
      const file = await loadConfigFile(sources, request);
      if (file !== undefined) files.push(file);
    }
  }
  return files;
}

/** The glob pattern one Include argument stands for, anchored and with its `~` expanded. */
function includePattern(
  sources: SshConfigSources,
  arg: string,
  include: { readonly at: ConfigPosition; readonly isUserConfig: boolean },
): string {
  const { at, isUserConfig } = include;
  if (arg === '') throw invalidConfigError(at, 'keyword include empty argument');
  if (arg.startsWith('~') && !isUserConfig) throw invalidConfigError(at, `bad include path ${arg}.`);
  const anchored =
    arg.startsWith('/') || arg.startsWith('~')
      ? arg
      : `${isUserConfig ? USER_CONFIG_DIR : SYSTEM_CONFIG_DIR}${arg}`;
  return expandGlobTilde(sources, anchored, at);
}

/**
 * ssh hands Include paths to glob(3) with GLOB_TILDE, and glibc takes `~` from $HOME when it is set, unlike
 * every other `~` in ssh_config, which is the password database's home (checked against ssh -G).
 */
function expandGlobTilde(sources: SshConfigSources, pattern: string, at: ConfigPosition): string {
  if (!pattern.startsWith('~')) return pattern;
  const slash = pattern.indexOf('/');
  const name = pattern.slice(1, slash < 0 ? undefined : slash);
  const tail = slash < 0 ? '' : pattern.slice(slash);
  const envHome = sources.env.HOME;
  if (name === '')
    return `${envHome === undefined || envHome === '' ? sources.localUser.home : envHome}${tail}`;
  if (name === sources.localUser.name) return `${sources.localUser.home}${tail}`;
  throw unsupportedConfigError(
    at,
    `Include ${pattern} names another user's home, which Catalyst does not look up`,
  );
}
