import type { HostCheckStep, PresentedHostKey } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { hostKeyFileOf } from '../host/ssh/host-key-trust.ts';
import type { AddStep, HostCheckResult } from './host-check-result.ts';
import { messageOf } from '../ideas/idea-meta-changes.ts';

/** A host's check when its connection failed (host-check.ts): which step failed, what to do, a key to confirm. */

/** Which step a connection failure belongs to, with what to do; the unknown key when that is what failed. */
export function connectFailure(error: unknown, alias: string, add: AddStep): HostCheckResult['presentedKey'] {
  const code = isCatalystError(error) ? error.code : 'SSH_CONNECT_FAILED';
  const details = isCatalystError(error) ? error.details : {};
  if (code === 'SSH_CONFIG_INVALID' || code === 'SSH_CONFIG_UNSUPPORTED') {
    add('resolve', failed(error, 'Fix ~/.ssh/config where it says, then check again.'));
    return undefined;
  }
  const isKey =
    code === 'SSH_HOST_KEY_UNKNOWN' || code === 'SSH_HOST_KEY_MISMATCH' || code === 'SSH_HOST_KEY_REVOKED';
  if (!isKey && code !== 'SSH_AUTH_FAILED') {
    add('connect', failed(error, `Check that \`ssh ${alias}\` works from the machine running Catalyst.`));
    return undefined;
  }
  add('connect', { status: 'ok', detail: 'reached' });
  if (code === 'SSH_HOST_KEY_UNKNOWN') {
    const presented = presentedKeyOf(details);
    add(
      'host-key',
      presented === undefined ? failed(error, compareFix(details)) : unknownKeyStep(presented.key),
    );
    return presented;
  }
  if (isKey) {
    add(
      'host-key',
      failed(
        error,
        'Find out why the key changed before you connect; remove the old line from known_hosts once you know.',
      ),
    );
    return undefined;
  }
  add('host-key', { status: 'ok', detail: 'the host key is known' });
  add(
    'auth',
    failed(
      error,
      `Add your public key to the VM (ssh-copy-id ${alias}) or load it into your ssh-agent (ssh-add).`,
    ),
  );
  return undefined;
}

/**
 * A key known nowhere, in words that leave its fingerprint to the confirmation (page and CLI show it once, beside
 * how to compare it), and that name the machine whose console shows it: a jump host's key is compared on the jump host.
 */
function unknownKeyStep(key: PresentedHostKey): Omit<HostCheckStep, 'id'> {
  const who = key.isJump === true ? `the jump host ${key.hop}` : key.hop || 'the host';
  return {
    status: 'failed',
    detail: `${who} presented a ${key.keyType} key that no known_hosts file holds (for ${key.knownHostsName})`,
    fix: compareFix({ keyType: key.keyType, jumpHost: key.isJump === true ? key.hop : undefined }),
  };
}

function compareFix(details: Readonly<Record<string, unknown>>): string {
  const keyType = typeof details['keyType'] === 'string' ? details['keyType'] : 'ssh-ed25519';
  const jump = details['jumpHost'];
  const where = typeof jump === 'string' ? `the jump host ${jump}’s console` : 'the VM’s own console';
  return `Compare its fingerprint with what \`ssh-keygen -lf ${hostKeyFileOf(keyType)}\` prints on ${where}, then confirm it.`;
}

function presentedKeyOf(details: Readonly<Record<string, unknown>>): HostCheckResult['presentedKey'] {
  const { publicKey, presented, keyType, knownHostsName, host, jumpHost } = details;
  if (typeof publicKey !== 'string' || typeof presented !== 'string' || typeof knownHostsName !== 'string')
    return undefined;
  return {
    publicKey,
    key: {
      fingerprint: presented,
      keyType: typeof keyType === 'string' ? keyType : 'unknown',
      knownHostsName,
      hop: typeof host === 'string' ? host : '',
      ...(typeof jumpHost === 'string' ? { isJump: true } : {}),
    },
  };
}

export function failed(error: unknown, fix: string): Omit<HostCheckStep, 'id'> {
  return {
    status: 'failed',
    detail: isCatalystError(error) ? error.message : messageOf(error),
    fix,
  };
}

/** A host whose new key waits for a confirmation runs nothing yet: new ideas must not go there (issue 40, item 7). */
export function refuseDefaultBeforeKey(name: string, presented: PresentedHostKey | undefined): void {
  if (presented === undefined) return;
  throw new CatalystError(
    'INVALID_ARGUMENT',
    `${name} cannot be the default yet: the host key ${presented.hop || name} presented is not confirmed. Confirm it (“Check” on the Hosts page), then make ${name} the default.`,
    { details: { host: name } },
  );
}
