import { invalidConfigError } from './ssh-config-errors.ts';
import type { OptionState, Sourced } from './ssh-config-options.ts';
import type { SshConfigSources } from './ssh-config-sources.ts';
import { formatProxyJump } from './ssh-proxy-jump.ts';
import { asciiLowercase } from './ssh-patterns.ts';
import {
  completeTokenValues,
  expandOptionValue,
  type ExpandableOption,
  type TokenValues,
} from './ssh-tokens.ts';
import type { IdentityAgentSetting, ResolvedSshConfig } from './resolved-ssh-config.ts';

/**
 * After the passes: ssh's defaults (readconf.c fill_default_options, ssh.c main) and the expansions ssh does before
 * connecting, so the result reads like `ssh -G` with IdentityFile and CertificateFile expanded too.
 */

/** OpenSSH 9.2's default identities (10.x drops id_xmss and id_dsa and adds id_mldsa44_ed25519). */
const DEFAULT_IDENTITY_FILES = [
  'id_rsa',
  'id_ecdsa',
  'id_ecdsa_sk',
  'id_ed25519',
  'id_ed25519_sk',
  'id_xmss',
  'id_dsa',
].map((name) => `~/.ssh/${name}`);
const DEFAULT_USER_KNOWN_HOSTS = ['~/.ssh/known_hosts', '~/.ssh/known_hosts2'];
const DEFAULT_GLOBAL_KNOWN_HOSTS = ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'];
const DEFAULT_PORT = 22;
const DEFAULT_SERVER_ALIVE_COUNT_MAX = 3;

interface Finishing {
  readonly alias: string;
  /** The final host name: HostName with %h expanded, lowercased unless an address. */
  readonly host: string;
  readonly sources: SshConfigSources;
}

type Expand = (option: ExpandableOption, sourced: Sourced) => string;

export function finishResolution(state: OptionState, finishing: Finishing): ResolvedSshConfig {
  const { alias, host, sources } = finishing;
  const port = state.port ?? DEFAULT_PORT;
  const user = state.user ?? sources.localUser.name;
  refuseJumpLoop(state, { host, port, user });
  const hostKeyAlias = state.hostKeyAlias === undefined ? undefined : asciiLowercase(state.hostKeyAlias);
  const tokens = completeTokenValues({
    ...{ d: sources.localUser.home, i: String(sources.localUser.uid), u: sources.localUser.name },
    ...{ h: host, k: hostKeyAlias ?? alias, l: sources.localHostname, n: alias, p: String(port), r: user },
  });
  const expand: Expand = (option, sourced) => expandSourced(option, sourced, { tokens, sources });
  const proxyCommand = state.proxyCommand?.value === 'none' ? undefined : state.proxyCommand;
  return {
    ...{ alias, hostname: host, port, user },
    ...finishKeys(state, expand, sources.env),
    proxyJump: formatProxyJump(state.jump),
    proxyCommand: proxyCommand && expand('proxycommand', proxyCommand),
    connectTimeoutSeconds: state.connectTimeout,
    serverAliveIntervalSeconds: state.serverAliveInterval ?? 0,
    isServerAliveTurnedOff: state.serverAliveInterval === 0,
    serverAliveCountMax: state.serverAliveCountMax ?? DEFAULT_SERVER_ALIVE_COUNT_MAX,
    hostKeyAlias,
    ...finishKnownHosts(state, expand),
    otherOptions: [...state.others],
    notes: [...state.notes],
  };
}

function finishKeys(state: OptionState, expand: Expand, env: SshConfigSources['env']) {
  const agent = state.identityAgent && expand('identityagent', state.identityAgent);
  return {
    identityFiles: withDefaults(state.identityFiles, DEFAULT_IDENTITY_FILES)
      .filter((file) => file.value.toLowerCase() !== 'none')
      .map((file) => expand('identityfile', file)),
    isIdentityFileListDefault: state.identityFiles.length === 0,
    identitiesOnly: state.identitiesOnly ?? false,
    certificateFiles: state.certificateFiles.map((file) => expand('certificatefile', file)),
    identityAgent: findAgent(agent, env),
  };
}

function finishKnownHosts(state: OptionState, expand: Expand) {
  const user = unlessNone(withDefaults(state.userKnownHostsFiles, DEFAULT_USER_KNOWN_HOSTS));
  const global = unlessNone(withDefaults(state.globalKnownHostsFiles, DEFAULT_GLOBAL_KNOWN_HOSTS));
  return {
    userKnownHostsFiles: user.map((file) => expand('userknownhostsfile', file)),
    globalKnownHostsFiles: global.map((file) => expand('globalknownhostsfile', file)),
    strictHostKeyChecking: state.strictHostKeyChecking ?? 'ask',
  };
}

function expandSourced(
  option: ExpandableOption,
  sourced: Sourced,
  context: { readonly tokens: TokenValues; readonly sources: SshConfigSources },
): string {
  const { tokens, sources } = context;
  return expandOptionValue(option, sourced.value, {
    tokens,
    env: sources.env,
    localUser: sources.localUser,
    at: sourced.at,
  });
}

function withDefaults(list: readonly Sourced[], defaults: readonly string[]): readonly Sourced[] {
  return list.length > 0 ? list : defaults.map((value) => ({ value, at: undefined }));
}

/** A known-hosts list of just `none` means no files (parsing already refused `none` beside others). */
function unlessNone(list: readonly Sourced[]): readonly Sourced[] {
  return list[0]?.value.toLowerCase() === 'none' ? [] : list;
}

/** ssh.c: `SSH_AUTH_SOCK` and unset mean $SSH_AUTH_SOCK, `$NAME` that variable, `none` no agent, else a path. */
function findAgent(setting: string | undefined, env: SshConfigSources['env']): IdentityAgentSetting {
  if (setting === undefined || setting === 'SSH_AUTH_SOCK') return { setting, socket: env.SSH_AUTH_SOCK };
  if (setting === 'none') return { setting, socket: undefined };
  if (setting.startsWith('$') && !setting.startsWith('${')) return { setting, socket: env[setting.slice(1)] };
  return { setting, socket: setting };
}

/** ssh.c refuses a ProxyJump whose last hop is the destination itself (same name, port and user). */
function refuseJumpLoop(state: OptionState, target: { host: string; port: number; user: string }): void {
  if (state.jump?.kind !== 'hops') return;
  const { last } = state.jump;
  const isSame =
    last.host === target.host &&
    (last.port ?? DEFAULT_PORT) === target.port &&
    (last.user ?? target.user) === target.user;
  if (isSame) throw invalidConfigError(undefined, `jumphost loop via ${last.host}`);
}
