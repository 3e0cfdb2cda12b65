import { CatalystError } from '../../core/catalyst-error.ts';
import { orderHostKeyAlgorithms } from './config/host-key-algorithms.ts';
import { describeHostKeyBlob } from './config/host-key-blob.ts';
import { fingerprintOf } from './config/host-key-fingerprint.ts';
import type { KnownHosts } from './config/known-hosts-file.ts';
import { checkHostKey, listKnownKeyTypes, type HostKeyVerdict } from './config/known-hosts.ts';
import {
  createHostKeyCheck,
  hostKeyMismatchError,
  type HostKeyCheck,
  type HostKeyPin,
} from './host-key-pin.ts';

/**
 * Which host keys a hop trusts: one pinned in Catalyst's hosts file, or those its known_hosts files hold (the
 * person's, as `ssh` reads them, and Catalyst's own, where keys a person confirmed in the app go). Never trust on
 * first use: a key known nowhere is refused with its fingerprint, for a person to confirm (docs/security.md).
 */
export type HostKeyPolicy =
  | { readonly kind: 'pinned'; readonly pin: HostKeyPin }
  | {
      readonly kind: 'known-hosts';
      /** The name looked up (known-hosts.ts computeKnownHostsName): `host`, `[host]:port` or the HostKeyAlias. */
      readonly name: string;
      readonly knownHosts: KnownHosts;
      /** The files read, in order, for the sentence when nothing is known. */
      readonly files: readonly string[];
    };

/** A HostKeyCheck that also says, once the handshake failed, why the key was refused. */
export interface TrustCheck extends HostKeyCheck {
  refusal(label: string, cause: unknown): CatalystError | undefined;
}

export function createTrustCheck(policy: HostKeyPolicy): TrustCheck {
  if (policy.kind === 'pinned') {
    const check = createHostKeyCheck(policy.pin);
    return {
      ...check,
      refusal: (label, cause) => {
        const presented = check.refusedFingerprint();
        return presented === undefined
          ? undefined
          : hostKeyMismatchError({ label, pin: policy.pin, presented, cause });
      },
    };
  }
  let refused: { verdict: HostKeyVerdict; key: Buffer } | undefined;
  return {
    algorithms: orderHostKeyAlgorithms(listKnownKeyTypes(policy.knownHosts, policy.name)),
    // Synchronous and boolean, as ssh2 needs (host-key-pin.ts): the files were read before the connect.
    verify: (key: unknown): boolean => {
      if (!Buffer.isBuffer(key)) return false;
      const verdict = checkHostKey(policy.knownHosts, { name: policy.name, presented: key });
      if (verdict.status === 'known') return true;
      refused = { verdict, key };
      return false;
    },
    refusedFingerprint: () => (refused === undefined ? undefined : fingerprintOf(refused.key)),
    refusal: (label, cause) => (refused === undefined ? undefined : refusalOf(policy, label, refused, cause)),
  };
}

function refusalOf(
  policy: Extract<HostKeyPolicy, { kind: 'known-hosts' }>,
  label: string,
  refused: { verdict: HostKeyVerdict; key: Buffer },
  cause: unknown,
): CatalystError {
  const { verdict, key } = refused;
  const presented = fingerprintOf(key);
  const described = describeHostKeyBlob(key);
  const keyType = typeof described === 'string' ? 'unknown' : described.keyType;
  // The key itself (public): what a person's confirmation writes into Catalyst's known_hosts.
  const publicKey = `${keyType} ${key.toString('base64')}`;
  const details = { host: label, knownHostsName: policy.name, presented, keyType, publicKey };
  switch (verdict.status) {
    case 'revoked':
      return new CatalystError(
        'SSH_HOST_KEY_REVOKED',
        `the host key of ${label} (${presented}) is marked @revoked in ${verdict.key.file}:${verdict.key.line}; refusing to connect`,
        { cause, details },
      );
    case 'changed': {
      const known = verdict.known.map((entry) => `${entry.fingerprint} (${entry.file}:${entry.line})`);
      return new CatalystError(
        'SSH_HOST_KEY_MISMATCH',
        `the host key of ${label} is ${presented}, but known_hosts holds ${known.join(', ')} for ${policy.name}; refusing to connect. ` +
          'If the VM was reinstalled or its keys rotated, check the new key on the VM and remove the old line; otherwise someone may be intercepting the connection',
        { cause, details: { ...details, expected: verdict.known[0]?.fingerprint ?? '' } },
      );
    }
    case 'unknown':
    case 'known':
      return unknownKeyError(policy, { details, cause, verdict });
  }
}

function unknownKeyError(
  policy: Extract<HostKeyPolicy, { kind: 'known-hosts' }>,
  facts: {
    details: { host: string; presented: string; keyType: string; publicKey: string; knownHostsName: string };
    cause: unknown;
    verdict: HostKeyVerdict;
  },
): CatalystError {
  const { details } = facts;
  const { host: label, presented, keyType } = details;
  const hasAuthorities =
    facts.verdict.status === 'unknown' && facts.verdict.certificateAuthorities.length > 0;
  const why = hasAuthorities
    ? `known_hosts trusts ${policy.name} through @cert-authority lines, and Catalyst cannot check host certificates`
    : `no known_hosts file (${policy.files.join(', ') || 'none'}) holds a key for ${policy.name}`;
  return new CatalystError(
    'SSH_HOST_KEY_UNKNOWN',
    `${label} presented the ${keyType} key ${presented}, and ${why}. ` +
      `Compare it with \`ssh-keygen -lf ${hostKeyFileOf(keyType)}\` run on the VM, then confirm it in Catalyst`,
    { cause: facts.cause, details },
  );
}

/** Where sshd keeps its key of that type, for the person to fingerprint on the VM's console. */
export function hostKeyFileOf(keyType: string): string {
  if (keyType.startsWith('ecdsa-')) return '/etc/ssh/ssh_host_ecdsa_key.pub';
  if (keyType === 'ssh-rsa') return '/etc/ssh/ssh_host_rsa_key.pub';
  return '/etc/ssh/ssh_host_ed25519_key.pub';
}
