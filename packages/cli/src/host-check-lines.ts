import type { HostCheckStep, HostCheckView, PresentedHostKey } from '@catalyst/protocol';
import type { Paint } from './paint.ts';

/**
 * A host's check as `catalyst hosts check` prints it: a line per step (its name, ok / warning / failed / skipped,
 * what was found) with what to do under a step that failed or warns, what of the ssh config Catalyst does not
 * honour, then whether the host is ready. Pure.
 */
export function formatHostCheck(check: HostCheckView, paint: Paint): string {
  const idWidth = Math.max(...check.steps.map((step) => step.id.length));
  const indent = ' '.repeat(2 + idWidth + 2 + STATUS_WIDTH + 2);
  const steps = check.steps.map((step) => {
    const status = paintStatus(step.status.padEnd(STATUS_WIDTH), step, paint);
    const detail = step.detail.split('\n').join(`\n${indent}`);
    const fix = step.fix === undefined ? '' : `\n${indent}${paint.bold('fix:')} ${step.fix}`;
    return `  ${step.id.padEnd(idWidth)}  ${status}  ${detail}${fix}`;
  });
  const ignored = check.ignored.map((sentence) => paint.dim(`  not honoured: ${sentence}`));
  const verdict = check.isReady
    ? paint.green(`${check.name} is ready: runs can start there.`)
    : paint.red(`${check.name} is not ready.`);
  return [`${check.name}:`, ...steps, ...ignored, verdict, ''].join('\n');
}

const STATUS_WIDTH = 'warning'.length;

function paintStatus(text: string, step: HostCheckStep, paint: Paint): string {
  switch (step.status) {
    case 'ok':
      return paint.green(text);
    case 'warning':
      return paint.yellow(text);
    case 'failed':
      return paint.red(text);
    case 'skipped':
      return paint.dim(text);
  }
}

/**
 * The key a host presented that no known_hosts holds, and how to compare it on the VM's console: `ssh-keygen -lf`
 * of the VM's own public key file of that type prints the same SHA256 fingerprint.
 */
export function formatUnknownHostKey(key: PresentedHostKey, paint: Paint): string {
  const by = key.hop === '' ? '' : ` (presented by ${key.hop})`;
  return [
    `The host key of ${key.knownHostsName} is known nowhere${by}:`,
    `  ${key.keyType} ${paint.bold(key.fingerprint)}`,
    `Compare it on the VM’s console with: ssh-keygen -lf ${hostKeyFileOf(key.keyType)}`,
    '',
  ].join('\n');
}

/** sshd's default HostKey files, by the key's type as SSH names it (ssh-ed25519, ecdsa-sha2-nistp256, rsa-sha2-512). */
const HOST_KEY_KINDS: readonly (readonly [RegExp, string])[] = [
  [/ed25519/, 'ed25519'],
  [/ecdsa/, 'ecdsa'],
  [/rsa/, 'rsa'],
  [/dss/, 'dsa'],
];

export function hostKeyFileOf(keyType: string): string {
  const kind = HOST_KEY_KINDS.find(([pattern]) => pattern.test(keyType))?.[1] ?? '*';
  return `/etc/ssh/ssh_host_${kind}_key.pub`;
}

/** What a person typed at "Trust this key?": the fingerprint to send (theirs, or the one shown for `yes`), or no. */
export type TrustAnswer = { trust: string } | { isDeclined: true } | { problem: string };

export function parseTrustAnswer(input: string, shown: string): TrustAnswer {
  const text = input.trim();
  const word = text.toLowerCase();
  if (word === 'yes' || word === 'y') return { trust: shown };
  if (word === 'no' || word === 'n') return { isDeclined: true };
  if (text === '') return { problem: 'Type the fingerprint you read on the VM, yes if it matches, or no.' };
  return { trust: text };
}
