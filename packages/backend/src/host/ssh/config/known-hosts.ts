import { fingerprintOf } from './host-key-fingerprint.ts';
import type { KnownHosts, KnownHostsEntry, KnownHostsLocation } from './known-hosts-file.ts';
import { doesHashedNameMatch } from './known-hosts-hash.ts';
import { asciiLowercase, matchHostname } from './ssh-patterns.ts';

/**
 * What known_hosts says about a presented host key, decided as ssh decides it (hostfile.c
 * `check_hostkeys_by_key_or_type`, sshconnect.c `check_host_key`), over the user's files first, then global ones.
 * The files are parsed by parseKnownHosts; their problems are reported there.
 */

/** A key from known_hosts, with where it was read and its fingerprint, for a person to compare. */
export interface KnownKey extends KnownHostsLocation {
  readonly keyType: string;
  readonly fingerprint: string;
}

export type HostKeyVerdict =
  /** A plain line for the name holds this very key. */
  | { readonly status: 'known'; readonly key: KnownKey }
  /** An `@revoked` line for the name holds this key: refused whatever else the files say. */
  | { readonly status: 'revoked'; readonly key: KnownKey }
  /** Plain lines for the name hold only other keys, of any type: the VM was rebuilt, or someone is in between. */
  | { readonly status: 'changed'; readonly known: readonly KnownKey[] }
  /**
   * No plain line for the name. When certificate authorities are listed for it, the host is meant to be trusted
   * through host certificates, which ssh2 cannot check: say so rather than ask about a plain key.
   */
  | { readonly status: 'unknown'; readonly certificateAuthorities: readonly KnownKey[] };

/**
 * The name ssh looks up (sshconnect.c `get_hostfile_hostname_ipaddr`): HostKeyAlias alone, without a port, when
 * set; otherwise the final HostName, bare for port 22 and `[host]:port` for any other (misc.c `put_host_port`).
 * ssh lowercases both first (ssh.c); hashed names are hashed in exactly this form.
 */
export function computeKnownHostsName(options: {
  hostName: string;
  port: number;
  hostKeyAlias?: string | undefined;
}): string {
  const { hostName, port, hostKeyAlias } = options;
  if (hostKeyAlias !== undefined) return asciiLowercase(hostKeyAlias);
  const host = asciiLowercase(hostName);
  return port === 22 || port === 0 ? host : `[${host}]:${port}`;
}

/**
 * The entries whose names match, in file order (what `ssh-keygen -F name` lists). The name is lowercased once
 * more: ssh only ever looks up lowercase names, and a hashed name never matches another case.
 */
export function findKnownHostsEntries(knownHosts: KnownHosts, name: string): KnownHostsEntry[] {
  const lookup = asciiLowercase(name);
  return knownHosts.entries.filter((entry) =>
    entry.names.kind === 'hashed'
      ? doesHashedNameMatch(entry.names.hashed, lookup)
      : matchHostname(lookup, entry.names.patterns) === 1,
  );
}

export function checkHostKey(
  knownHosts: KnownHosts,
  options: { name: string; presented: Buffer },
): HostKeyVerdict {
  const { presented } = options;
  const entries = findKnownHostsEntries(knownHosts, options.name);
  const revoked = entries.find((entry) => entry.marker === 'revoked' && entry.blob.equals(presented));
  if (revoked !== undefined) return { status: 'revoked', key: describeKnownKey(revoked) };
  const plain = entries.filter((entry) => entry.marker === 'none');
  const equal = plain.find((entry) => entry.blob.equals(presented));
  if (equal !== undefined) return { status: 'known', key: describeKnownKey(equal) };
  if (plain.length > 0) return { status: 'changed', known: plain.map(describeKnownKey) };
  const authorities = entries.filter((entry) => entry.marker === 'cert-authority');
  return { status: 'unknown', certificateAuthorities: authorities.map(describeKnownKey) };
}

/**
 * The key types of the plain lines for the name, first seen first: what orderHostKeyAlgorithms puts ahead so the
 * server presents a key that can be `known` (sshconnect2.c `order_hostkeyalgs`).
 */
export function listKnownKeyTypes(knownHosts: KnownHosts, name: string): string[] {
  const plain = findKnownHostsEntries(knownHosts, name).filter((entry) => entry.marker === 'none');
  return [...new Set(plain.map((entry) => entry.keyType))];
}

function describeKnownKey(entry: KnownHostsEntry): KnownKey {
  return {
    file: entry.file,
    line: entry.line,
    keyType: entry.keyType,
    fingerprint: fingerprintOf(entry.blob),
  };
}
