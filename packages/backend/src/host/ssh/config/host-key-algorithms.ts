import type { ServerHostKeyAlgorithm } from 'ssh2';

/**
 * The signature algorithms ssh2 may negotiate for each host key type it can verify. Pinning
 * `algorithms.serverHostKey` to these stops a server with several host keys from presenting another type than the
 * known one (ssh-field-notes.md §6). An RSA key is stored as `ssh-rsa` but signs with SHA-2; OpenSSH ≥ 8.8 refuses
 * SHA-1 `ssh-rsa` signatures. The order is ssh2's own preference.
 */
export const ALGORITHMS_BY_KEY_TYPE = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256'],
} as const satisfies Record<string, readonly ServerHostKeyAlgorithm[]>;

export type HostKeyType = keyof typeof ALGORITHMS_BY_KEY_TYPE;

export function isHostKeyType(value: string | undefined): value is HostKeyType {
  return value !== undefined && Object.hasOwn(ALGORITHMS_BY_KEY_TYPE, value);
}

/**
 * `algorithms.serverHostKey` as ssh orders it (sshconnect2.c `order_hostkeyalgs`): the algorithms of the types
 * already known for the host first, then the others, so a server that dropped the known type still shows its key
 * and the verdict can say "changed" with fingerprints instead of a bare handshake failure. Types ssh2 cannot
 * verify (DSA, security keys) are left out.
 */
export function orderHostKeyAlgorithms(knownTypes: readonly string[]): ServerHostKeyAlgorithm[] {
  const allTypes = Object.keys(ALGORITHMS_BY_KEY_TYPE).filter(isHostKeyType);
  const known = allTypes.filter((type) => knownTypes.includes(type));
  const others = allTypes.filter((type) => !knownTypes.includes(type));
  return [...known, ...others].flatMap((type) => ALGORITHMS_BY_KEY_TYPE[type]);
}
