import type { OtherOption, SshConfigNote } from './ssh-config-options.ts';
import type { StrictHostKeyChecking } from './ssh-config-values.ts';

export type { OtherOption, SshConfigNote, StrictHostKeyChecking };

/** Which agent ssh would ask for keys. */
export interface IdentityAgentSetting {
  /** IdentityAgent as configured, `~`, tokens and `${VAR}` expanded (what `ssh -G` prints); undefined if unset. */
  readonly setting: string | undefined;
  /** The socket that means: the setting's path, `SSH_AUTH_SOCK` or `$VAR` looked up, $SSH_AUTH_SOCK when unset. */
  readonly socket: string | undefined;
}

/**
 * One alias resolved as `ssh -G` (OpenSSH 9.2) would: first obtained value wins, defaults filled in, `~`, `%` tokens
 * and `${VAR}` expanded where ssh expands them.
 */
export interface ResolvedSshConfig {
  /** The name as typed (%n). */
  readonly alias: string;
  /** HostName with %h expanded and lowercased (addresses kept as written), or the alias lowercased. */
  readonly hostname: string;
  readonly port: number;
  readonly user: string;
  /** Expanded paths in config order, without `none` entries; ssh's defaults when no IdentityFile line applied. */
  readonly identityFiles: readonly string[];
  /** The list is ssh's default one, whose missing files ssh skips without a word. */
  readonly isIdentityFileListDefault: boolean;
  readonly identitiesOnly: boolean;
  readonly certificateFiles: readonly string[];
  readonly identityAgent: IdentityAgentSetting;
  /** The jump hosts as `ssh -G` prints them (parse with parseProxyJump, follow with expandJumpChain). */
  readonly proxyJump: string | undefined;
  /** The command with its tokens expanded, without ssh's `exec ` prefix. */
  readonly proxyCommand: string | undefined;
  /** Undefined: no timeout of ssh's own (the system's TCP timeout). */
  readonly connectTimeoutSeconds: number | undefined;
  /** 0: no keepalives. */
  readonly serverAliveIntervalSeconds: number;
  /** The config says `ServerAliveInterval 0` itself (unset is 0 too, and says nothing). */
  readonly isServerAliveTurnedOff: boolean;
  readonly serverAliveCountMax: number;
  /** Lowercased; replaces `[host]:port` as the known_hosts name. */
  readonly hostKeyAlias: string | undefined;
  /** Expanded; [] for `none`. */
  readonly userKnownHostsFiles: readonly string[];
  readonly globalKnownHostsFiles: readonly string[];
  readonly strictHostKeyChecking: StrictHostKeyChecking;
  /** Options ssh knows and Catalyst does not act on, as they applied (e.g. ControlMaster, LocalForward). */
  readonly otherOptions: readonly OtherOption[];
  /** What was read but not honoured, in sentences. */
  readonly notes: readonly SshConfigNote[];
}
