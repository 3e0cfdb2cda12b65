/**
 * A host as the configuration names it (server/config.ts reads it from the environment and the hosts file): the
 * composition root makes a Host of it, the service's host registry keeps it.
 */

export interface LocalHostEntry {
  readonly name: string;
  readonly kind: 'local';
  /** The host Catalyst makes when no CATALYST_CONFIG_FILE is set (this machine), not one a file names. */
  readonly isBuiltIn?: boolean;
  /** The host's own `ideasRoot`, else CATALYST_IDEAS_ROOT. `~/` means the host user's home. */
  readonly ideasRoot: string;
  readonly claudePath?: string;
}

export interface SshHostEntry {
  readonly name: string;
  readonly kind: 'ssh';
  readonly connect: SshConnectEntry;
  /** Added in the app (kept in Catalyst's config dir, issue 28), as this alias or user@host[:port]. */
  readonly addedAs?: string;
  readonly ideasRoot: string;
  readonly claudePath?: string;
}

/** How to reach an SSH host: field by field with a pinned key, or as `ssh <alias>` would. */
export type SshConnectEntry =
  | {
      readonly via: 'fields';
      readonly address: string;
      readonly port: number;
      readonly user: string;
      readonly privateKeyPath: string;
      /** A known_hosts line, already checked to parse. */
      readonly hostKey: string;
    }
  | {
      readonly via: 'ssh-config';
      readonly alias: string;
      /** Like `ssh -F`; ~/.ssh/config and /etc/ssh/ssh_config otherwise. */
      readonly configFile?: string;
      readonly user?: string;
      readonly port?: number;
      readonly hostKey?: string;
    };

export type HostEntry = LocalHostEntry | SshHostEntry;

/** Where a host comes from, as the API says it (HostSourceSchema): added in the app, a hosts file, or built in. */
export function sourceOf(entry: HostEntry): 'app' | 'file' | 'builtin' {
  if (entry.kind === 'local') return entry.isBuiltIn === true ? 'builtin' : 'file';
  return entry.addedAs === undefined ? 'file' : 'app';
}
