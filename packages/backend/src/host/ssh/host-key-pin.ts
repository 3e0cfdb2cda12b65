import type { ServerHostKeyAlgorithm } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import { ALGORITHMS_BY_KEY_TYPE, isHostKeyType, type HostKeyType } from './config/host-key-algorithms.ts';
import { fingerprintOf } from './config/host-key-fingerprint.ts';

/**
 * The host key Catalyst accepts for one VM, from a known_hosts line. The check compares the raw key blob, never a
 * hash of it, and is a plain synchronous function returning a boolean: ssh2 accepts *every* key when the verifier
 * returns a Promise or any other non-undefined value (ssh-field-notes.md §6).
 */

export type { HostKeyType } from './config/host-key-algorithms.ts';
export { fingerprintOf } from './config/host-key-fingerprint.ts';

export interface HostKeyPin {
  readonly keyType: HostKeyType;
  /** The SSH wire-format public key: what ssh2 hands the verifier. */
  readonly blob: Buffer;
  /** OpenSSH's form, as `ssh-keygen -lf` prints it: `SHA256:` + unpadded base64 of sha256(blob). */
  readonly fingerprint: string;
}

export interface HostKeyCheck {
  readonly algorithms: ServerHostKeyAlgorithm[];
  /** For ssh2's `hostVerifier`: synchronous, returns a boolean, remembers a refused key. */
  readonly verify: (key: unknown) => boolean;
  /** The fingerprint of the last key refused, if any: the detail a person needs to decide what changed. */
  refusedFingerprint(): string | undefined;
}

export function hostKeyHowTo(address: string, port: number): string {
  return `get it with \`ssh-keyscan -p ${port} -t ed25519 ${address}\`, check its fingerprint against \`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub\` run on the VM, and set hostKey to the line ssh-keyscan printed`;
}

/**
 * Accepts `[host]:port type base64 [comment]`, `host type base64`, or a bare `type base64` (a `.pub` file). The
 * host field is not matched: the pin is configured per host already. `@cert-authority` and `@revoked` lines are
 * refused, as are hashed or unparsable keys.
 */
export function parseKnownHostsLine(line: string): HostKeyPin {
  const fields = line.trim().split(/\s+/);
  const keyAt = fields.findIndex((field) => isHostKeyType(field));
  const keyType = fields[keyAt];
  const encoded = fields[keyAt + 1];
  if (
    fields[0]?.startsWith('@') === true ||
    keyAt < 0 ||
    keyAt > 1 ||
    !isHostKeyType(keyType) ||
    encoded === undefined
  ) {
    throw invalidLine(
      line,
      `expected "[host]:port <key type> <base64 key>" with one of ${Object.keys(ALGORITHMS_BY_KEY_TYPE).join(', ')}`,
    );
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw invalidLine(line, 'the key is not base64');
  const blob = Buffer.from(encoded, 'base64');
  if (embeddedKeyType(blob) !== keyType) {
    throw invalidLine(line, `the key's own type is not ${keyType}`);
  }
  return { keyType, blob, fingerprint: fingerprintOf(blob) };
}

export function createHostKeyCheck(pin: HostKeyPin): HostKeyCheck {
  let refused: string | undefined;
  return {
    algorithms: [...ALGORITHMS_BY_KEY_TYPE[pin.keyType]],
    verify: (key: unknown): boolean => {
      if (!Buffer.isBuffer(key)) return false;
      if (key.equals(pin.blob)) return true;
      refused = fingerprintOf(key);
      return false;
    },
    refusedFingerprint: () => refused,
  };
}

export function hostKeyMismatchError(options: {
  label: string;
  pin: HostKeyPin;
  presented: string;
  cause?: unknown;
}): CatalystError {
  const { label, pin, presented } = options;
  return new CatalystError(
    'SSH_HOST_KEY_MISMATCH',
    `the host key of ${label} is ${presented}, but ${pin.fingerprint} is pinned; refusing to connect. ` +
      'If the VM was reinstalled or its keys rotated, confirm the new key on the VM and update hostKey; otherwise someone may be intercepting the connection',
    { cause: options.cause, details: { host: label, expected: pin.fingerprint, presented } },
  );
}

/** An SSH public key blob starts with its type as an SSH string: uint32 length, then ASCII (RFC 4253 §6.6). */
function embeddedKeyType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length > 64 || blob.length < 4 + length) return undefined;
  return blob.subarray(4, 4 + length).toString('latin1');
}

function invalidLine(line: string, problem: string): CatalystError {
  return new CatalystError('INVALID_ARGUMENT', `hostKey is not a usable known_hosts line: ${problem}`, {
    details: { hostKey: line.slice(0, 200) },
  });
}
