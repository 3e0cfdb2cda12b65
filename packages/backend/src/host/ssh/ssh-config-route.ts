import { readFile } from 'node:fs/promises';
import { parseKnownHosts, type KnownHostsSource } from './config/known-hosts-file.ts';
import { computeKnownHostsName } from './config/known-hosts.ts';
import type { ResolvedSshConfig } from './config/resolved-ssh-config.ts';
import type { OtherOption } from './config/ssh-config-options.ts';
import { resolveSshConfig } from './config/ssh-config-resolve.ts';
import type { SshConfigSources } from './config/ssh-config-sources.ts';
import { expandJumpChain, type HopOverrides } from './config/ssh-proxy-jump.ts';
import type { HostKeyPin } from './host-key-pin.ts';
import type { HostKeyPolicy } from './host-key-trust.ts';
import { describeError } from './ssh-errors.ts';
import type { SshHop, SshRoute } from './ssh-route.ts';

/**
 * A host named by its ~/.ssh/config alias, made into a route (ssh-route.ts) as `ssh <alias>` would connect: the
 * alias resolved (config/ssh-config-resolve.ts), its ProxyJump followed hop by hop, its ProxyCommand run for the
 * first hop, each hop's known_hosts files read (the person's, then Catalyst's own, then the global ones). What
 * Catalyst does not honour is listed in words, never dropped in silence.
 */

export interface AliasRouteOptions {
  readonly alias: string;
  readonly sources: SshConfigSources;
  /** Like `ssh -F`. */
  readonly configFile?: string | undefined;
  /** Like `ssh -l` and `-p`: the hosts file's own user and port for the target win over the config. */
  readonly overrides?: HopOverrides | undefined;
  /** Catalyst's own known_hosts (0600, in its config dir): the keys a person confirmed in the app. */
  readonly catalystKnownHosts: string;
  /** A pin from the hosts file wins over known_hosts for the target. */
  readonly pin?: HostKeyPin | undefined;
  /** Catalyst's keepalive and handshake timeout when the config sets none (ssh's own are off and unbounded). */
  readonly defaults: { readyTimeoutMs: number; keepaliveIntervalMs: number; keepaliveCountMax: number };
}

export async function resolveAliasRoute(options: AliasRouteOptions): Promise<SshRoute> {
  const { sources, configFile } = options;
  const resolve = (alias: string, overrides?: HopOverrides) =>
    resolveSshConfig(alias, sources, {
      ...(configFile === undefined ? {} : { configFile }),
      ...(overrides === undefined ? {} : { overrides }),
    });
  const target = await resolve(options.alias, options.overrides);
  const jumps = await expandJumpChain(target, resolve);
  const first = jumps[0] ?? target;
  const ignored = [target, ...jumps].flatMap((hop) => ignoredOf(hop, options));
  const hops = await Promise.all(
    [...jumps, target].map((hop) =>
      toHop(hop, { ...options, pin: hop === target ? options.pin : undefined }),
    ),
  );
  const targetHop = hops.pop();
  if (targetHop === undefined) throw new Error('a route without a target');
  return {
    target: targetHop,
    jumps: hops,
    ...(first.proxyCommand === undefined ? {} : { proxyCommand: first.proxyCommand }),
    ignored: [...new Set(ignored)],
  };
}

async function toHop(resolved: ResolvedSshConfig, options: AliasRouteOptions): Promise<SshHop> {
  const { defaults } = options;
  const keepalive = resolved.serverAliveIntervalSeconds;
  return {
    label: `${resolved.alias} (${resolved.user}@${resolved.hostname}:${resolved.port})`,
    hostName: resolved.hostname,
    port: resolved.port,
    user: resolved.user,
    identities: {
      files: resolved.identityFiles,
      areDefaultFiles: resolved.isIdentityFileListDefault,
      agentSocket: resolved.identityAgent.socket,
      identitiesOnly: resolved.identitiesOnly,
    },
    hostKey:
      options.pin === undefined
        ? await knownHostsPolicy(resolved, options)
        : { kind: 'pinned', pin: options.pin },
    readyTimeoutMs:
      resolved.connectTimeoutSeconds === undefined
        ? defaults.readyTimeoutMs
        : resolved.connectTimeoutSeconds * 1000,
    keepaliveIntervalMs: keepalive > 0 ? keepalive * 1000 : defaults.keepaliveIntervalMs,
    keepaliveCountMax: keepalive > 0 ? resolved.serverAliveCountMax : defaults.keepaliveCountMax,
  };
}

async function knownHostsPolicy(
  resolved: ResolvedSshConfig,
  options: AliasRouteOptions,
): Promise<HostKeyPolicy> {
  const files = [
    ...resolved.userKnownHostsFiles,
    options.catalystKnownHosts,
    ...resolved.globalKnownHostsFiles,
  ];
  const sources = await Promise.all(files.map(readKnownHostsFile));
  return {
    kind: 'known-hosts',
    name: computeKnownHostsName({
      hostName: resolved.hostname,
      port: resolved.port,
      hostKeyAlias: resolved.hostKeyAlias,
    }),
    knownHosts: parseKnownHosts(sources.flatMap((source) => source ?? [])),
    files,
  };
}

/** A missing file is no key; an unreadable one is none either, as for ssh (which only says so with -v). */
async function readKnownHostsFile(fileName: string): Promise<KnownHostsSource | undefined> {
  try {
    return { fileName, text: await readFile(fileName, 'utf8') };
  } catch (error) {
    if (describeError(error).includes('ENOENT')) return undefined;
    return { fileName, text: '' };
  }
}

function ignoredOf(resolved: ResolvedSshConfig, options: AliasRouteOptions): string[] {
  const where = resolved.alias;
  const ignored = [
    ...describeOtherOptions(resolved.otherOptions),
    ...resolved.notes.map((note) => `${where}: ${note.message}`),
  ];
  if (resolved.certificateFiles.length > 0) {
    ignored.push(`CertificateFile (${where}) is ignored: Catalyst cannot use SSH certificates`);
  }
  if (resolved.strictHostKeyChecking === 'no' || resolved.strictHostKeyChecking === 'accept-new') {
    ignored.push(
      `StrictHostKeyChecking ${resolved.strictHostKeyChecking} (${where}) is ignored: Catalyst never trusts a key on first use; a new key is confirmed in the app`,
    );
  }
  if (resolved.isServerAliveTurnedOff) {
    ignored.push(
      `ServerAliveInterval (${where}) is off: Catalyst sends its own keepalive every ${options.defaults.keepaliveIntervalMs / 1000} s to notice a VM that went away`,
    );
  }
  return ignored;
}

/** Where ssh's system-wide config and its includes live (config/ssh-config-load.ts). */
const SYSTEM_CONFIG_DIR = '/etc/ssh/';
/**
 * What the system's ssh_config sets for every host and changes nothing for Catalyst (issue 40): Debian's and Fedora's
 * SendEnv LANG LC_* (a run's environment is Catalyst's own), HashKnownHosts (Catalyst writes its own known_hosts),
 * GSSAPIAuthentication and its delegation (tried only where Kerberos is set up), ForwardX11Trusted (no X11 asked).
 */
const QUIET_SYSTEM_DEFAULTS: ReadonlySet<string> = new Set([
  'sendenv',
  'hashknownhosts',
  'gssapiauthentication',
  'gssapidelegatecredentials',
  'forwardx11trusted',
]);

function isQuietSystemDefault(option: OtherOption): boolean {
  return option.at.file.startsWith(SYSTEM_CONFIG_DIR) && QUIET_SYSTEM_DEFAULTS.has(option.keyword);
}

/**
 * One sentence per file for the options ssh knows and Catalyst does not act on, each as the file writes it with its
 * line: `ControlMaster (line 3), ControlPath (line 4) in ~/.ssh/config: …`. The system's defaults that change nothing
 * are not said at all.
 */
function describeOtherOptions(options: readonly OtherOption[]): string[] {
  const byFile = new Map<string, string[]>();
  for (const option of options.filter((known) => !isQuietSystemDefault(known))) {
    const named = `${option.written} (line ${String(option.at.line)})`;
    byFile.set(option.at.file, [...(byFile.get(option.at.file) ?? []), named]);
  }
  return [...byFile].map(
    ([file, named]) =>
      `${named.join(', ')} in ${file}: not used, Catalyst keeps its own connections and does not act on ${named.length === 1 ? 'it' : 'them'}`,
  );
}
