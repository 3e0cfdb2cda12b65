import type { HostCheckStep, HostCheckStepId } from '@catalyst/protocol';

/** The words of a host's check (issue 28): each step's name and status as a person reads them. */

export const STEP_LABELS: Record<HostCheckStepId, string> = {
  resolve: 'Resolve',
  connect: 'Connect',
  'host-key': 'Host key',
  auth: 'Authentication',
  claude: 'Claude',
  login: 'Logged in',
  tools: 'Tools',
  disk: 'Disk',
};

export const STATUS_LABELS: Record<HostCheckStep['status'], string> = {
  ok: 'OK',
  warning: 'Warning',
  failed: 'Failed',
  skipped: 'Skipped',
};

/**
 * The file on the VM whose fingerprint `ssh-keygen -lf` prints for a key of this type: `ssh-ed25519` →
 * `/etc/ssh/ssh_host_ed25519_key.pub`, `ecdsa-sha2-nistp256` → `…_ecdsa_key.pub`, `ssh-rsa` → `…_rsa_key.pub`.
 */
export function hostKeyFileOf(keyType: string): string {
  const kind = keyType.includes('ed25519') ? 'ed25519' : keyType.startsWith('ecdsa') ? 'ecdsa' : 'rsa';
  return `/etc/ssh/ssh_host_${kind}_key.pub`;
}
