import type { HostKeyPolicy } from './host-key-trust.ts';
import type { SshIdentities } from './ssh-auth.ts';
import type { SshPoolLimits, SshTiming } from './ssh-limits.ts';

/**
 * How one connection to a host is made, as `ssh` would make it: the target, the jump hosts before it (ProxyJump,
 * nearest first, each a handshake of its own with its own keys and host key), or a ProxyCommand whose stdio is the
 * connection to the first hop. A host configured field by field is a route of one hop with a pinned key; a host
 * named by its ~/.ssh/config alias is resolved into one at every new connection, so an edit of the file counts.
 */

export interface SshHop {
  /** `user@host:port`, with the alias first when it has one: for logs and sentences. */
  readonly label: string;
  /** What the TCP connection (or the jump's forward) dials: the HostName. */
  readonly hostName: string;
  readonly port: number;
  readonly user: string;
  readonly identities: SshIdentities;
  readonly hostKey: HostKeyPolicy;
  readonly readyTimeoutMs: number;
  /** 0: none. */
  readonly keepaliveIntervalMs: number;
  readonly keepaliveCountMax: number;
}

export interface SshRoute {
  readonly target: SshHop;
  /** ProxyJump's hosts, the first one dialled first. */
  readonly jumps: readonly SshHop[];
  /** Run on this machine; its stdin and stdout are the connection to the first hop (ssh-proxy-command.ts). */
  readonly proxyCommand?: string | undefined;
  /** What Catalyst does not honour of the person's ssh_config, in words: shown by the host's check. */
  readonly ignored: readonly string[];
}

/** A host's settings, given field by field or by its ~/.ssh/config alias (ssh-config.ts, ssh-alias-config.ts). */
export interface SshHostSettings {
  /** `user@address:port`, for logs and error messages. */
  readonly label: string;
  /** The route of a new connection. */
  route(): Promise<SshRoute>;
  readonly claudePath?: string;
  readonly pool: SshPoolLimits;
  readonly timing: SshTiming;
}
