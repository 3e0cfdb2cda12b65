/**
 * What resolving an ssh_config needs from the machine, injected so the resolver stays pure: tests hand it files in
 * memory or real ones, the backend hands it node:fs (ssh-config-files.ts).
 */
export interface SshConfigSources {
  /** The file's text, or undefined when it does not exist (OpenSSH skips a missing included file). */
  readonly readFile: (path: string) => Promise<string | undefined>;
  /** glob(3) without flags: matches in lexical order, [] when none; `*` and `?` do not match a leading dot. */
  readonly glob: (pattern: string) => Promise<readonly string[]>;
  /** Owner and mode of an included file, which must be root's or the user's and not group/world-writable. */
  readonly stat: (path: string) => Promise<{ readonly uid: number; readonly mode: number }>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The account from the password database (getpwuid): `~`, %d, %u and %i come from here, not from $HOME. */
  readonly localUser: { readonly name: string; readonly uid: number; readonly home: string };
  /** gethostname(): %l, and %L up to its first dot. */
  readonly localHostname: string;
  /**
   * The opt-in for `Match exec`: runs the (expanded) command and says whether it exited 0. Absent, a Match exec
   * that ssh would run is refused with SSH_CONFIG_UNSUPPORTED rather than running a command from the config.
   */
  readonly runMatchExec?: (command: string) => Promise<boolean>;
}
