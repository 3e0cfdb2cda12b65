import { applyOptionLine } from './ssh-config-apply.ts';
import { isValidHostnameArg, isValidRemoteUser } from './ssh-command-line-names.ts';
import { invalidConfigError } from './ssh-config-errors.ts';
import { finishResolution } from './ssh-config-finish.ts';
import { loadSshConfigFiles, type LoadedConfigFile } from './ssh-config-load.ts';
import { evaluateMatchLine, matchHostLine, type MatchContext } from './ssh-config-match.ts';
import { addNote, createOptionState, type OptionState } from './ssh-config-options.ts';
import type { SshConfigSources } from './ssh-config-sources.ts';
import { asciiLowercase } from './ssh-patterns.ts';
import { applyProxyJump, type HopOverrides } from './ssh-proxy-jump.ts';
import { expandOptionValue } from './ssh-tokens.ts';
import type { ResolvedSshConfig } from './resolved-ssh-config.ts';

/**
 * Resolves an alias from ssh_config as OpenSSH 9.2's `ssh -G alias` does (ssh.c main, readconf.c): read the files
 * once for the name as typed; expand HostName; if a `Match final` (or CanonicalizeHostname) asks, read them again
 * with Host matching the final name, keeping what the first pass set; then fill the defaults.
 */

export interface ResolveOptions {
  /** Like `ssh -F`: only this file, which must exist. Otherwise ~/.ssh/config (if any) then /etc/ssh/ssh_config. */
  readonly configFile?: string;
  /** Like `-l`, `-p` and `-J` on ssh's command line: set before the files are read, so they win. */
  readonly overrides?: HopOverrides;
}

export async function resolveSshConfig(
  alias: string,
  sources: SshConfigSources,
  options: ResolveOptions = {},
): Promise<ResolvedSshConfig> {
  refuseUnsafeNames(alias, options.overrides?.user);
  const files = await loadSshConfigFiles(sources, options.configFile);
  const state = createOptionState();
  applyOverrides(state, options.overrides);
  const context = { originalHost: alias, state, sources };
  const wantsFinalPass = await walkFiles(files, { ...context, host: alias, isFinalPass: false });
  const host = finalHost(state, alias, sources);
  const isCanonicalizing = asksCanonicalization(state);
  if (wantsFinalPass || isCanonicalizing) {
    state.hostname = { value: host, at: undefined };
    await walkFiles(files, { ...context, host, isFinalPass: true });
  }
  return finishResolution(state, { alias, host, sources });
}

/** The name typed and a `-l` user are checked as ssh checks its command line. */
function refuseUnsafeNames(alias: string, user: string | undefined): void {
  if (!isValidHostnameArg(alias)) {
    throw invalidConfigError(undefined, `hostname contains invalid characters: ${JSON.stringify(alias)}`);
  }
  if (user !== undefined && !isValidRemoteUser(user)) {
    throw invalidConfigError(
      undefined,
      `remote username contains invalid characters: ${JSON.stringify(user)}`,
    );
  }
}

function applyOverrides(state: OptionState, overrides: HopOverrides | undefined): void {
  if (overrides?.user !== undefined) state.user = overrides.user;
  if (overrides?.port !== undefined) state.port = overrides.port;
  if (overrides?.proxyJump !== undefined) {
    applyProxyJump(state, overrides.proxyJump, { isActive: true, at: undefined, isStrict: true });
  }
}

/** HostName with %h (the name typed) expanded, lowercased unless it is an address, as ssh.c does. */
function finalHost(state: OptionState, alias: string, sources: SshConfigSources): string {
  const hostname = state.hostname;
  const host =
    hostname === undefined
      ? alias
      : expandOptionValue('hostname', hostname.value, {
          tokens: { h: alias },
          env: sources.env,
          localUser: sources.localUser,
          at: hostname.at,
        });
  return isAddress(host) ? canonicalAddress(host) : asciiLowercase(host);
}

/** ssh.c is_addr_fast: a `%`, a `:`, or only digits and dots. Such a name is not lowercased. */
function isAddress(host: string): boolean {
  return /[%:]/.test(host) || /^[0-9.]*$/.test(host);
}

/** ssh writes an IPv6 address in its canonical form (getnameinfo NI_NUMERICHOST), as the URL parser does. */
function canonicalAddress(host: string): string {
  if (!host.includes(':') || host.includes('%')) return host;
  try {
    return new URL(`ssh://[${host}]`).hostname.slice(1, -1);
  } catch {
    return host;
  }
}

/** CanonicalizeHostname other than `no` makes ssh read the files again; the DNS part is noted, not done. */
function asksCanonicalization(state: OptionState): boolean {
  const option = state.others.find((other) => other.keyword === 'canonicalizehostname');
  const value = option?.value.split(/[\s#]/)[0]?.toLowerCase();
  if (option === undefined || value === 'no' || value === 'false') return false;
  const message = `CanonicalizeHostname ${value ?? ''}: Catalyst does not look host names up in DNS; HostName is used as is`;
  addNote(state, { at: option.at, message });
  return true;
}

/** One pass over the files; says whether a `Match final` was seen. Each top-level file starts active. */
async function walkFiles(files: readonly LoadedConfigFile[], context: MatchContext): Promise<boolean> {
  const walk: Walk = { context, wantsFinalPass: false };
  for (const file of files) await walkFile(file, walk, { isActive: true, isNeverMatch: false });
  return walk.wantsFinalPass;
}

interface Walk {
  readonly context: MatchContext;
  wantsFinalPass: boolean;
}
interface BlockState {
  /** Whether lines apply now: set by Host and Match, shared with included files, restored after each. */
  isActive: boolean;
  /** Inside an Include from an inactive block: parsed for errors, never applied (SSHCONF_NEVERMATCH). */
  readonly isNeverMatch: boolean;
}

async function walkFile(file: LoadedConfigFile, walk: Walk, block: BlockState): Promise<void> {
  const { context } = walk;
  for (const entry of file.entries) {
    const line = entry.line;
    if (entry.kind === 'include') {
      const outer = block.isActive;
      for (const included of entry.files) {
        const inner: BlockState = { isActive: outer, isNeverMatch: block.isNeverMatch || !outer };
        await walkFile(included, walk, inner);
      }
      block.isActive = outer;
    } else if (line.keyword === 'host') {
      block.isActive = matchHostLine(line, context.host, block.isNeverMatch);
    } else if (line.keyword === 'match') {
      const result = await evaluateMatchLine(line, context);
      walk.wantsFinalPass ||= result.wantsFinalPass;
      block.isActive = !block.isNeverMatch && result.isMatch;
    } else {
      applyOptionLine(context.state, line, { isActive: block.isActive, env: context.sources.env });
    }
  }
}
