/**
 * What a public key blob (SSH wire format, RFC 4253 §6.6: what known_hosts holds in base64 and what ssh2 hands
 * the host verifier) says about itself: its type, the label and bits `ssh-keygen -l` prints. Parsed as strictly as
 * OpenSSH's `sshkey_from_blob`: the fields of the type, nothing left over.
 */

export interface HostKeyDescription {
  /** The type name on the wire and in known_hosts, e.g. `ssh-ed25519`. */
  readonly keyType: string;
  /** OpenSSH's short name, as `ssh-keygen -l` prints it in parentheses: `ED25519`, `RSA`, `ECDSA`, … */
  readonly label: string;
  readonly bits: number;
}

interface BlobReader {
  readString(): Buffer | undefined;
  isAtEnd(): boolean;
}

interface KeyLayout {
  readonly label: string;
  readonly readBits: (reader: BlobReader) => number | undefined;
}

/**
 * Each known type: its label and how to read the fields after the type name, giving the key's size in bits. A Map,
 * so a blob naming its type `constructor` or `__proto__` finds nothing rather than Object's prototype.
 */
const KEY_LAYOUTS = new Map<string, KeyLayout>(
  Object.entries({
    'ssh-ed25519': { label: 'ED25519', readBits: readEd25519Bits },
    'sk-ssh-ed25519@openssh.com': {
      label: 'ED25519-SK',
      readBits: (reader) => withApplication(reader, readEd25519Bits(reader)),
    },
    'ssh-rsa': { label: 'RSA', readBits: readRsaBits },
    'ssh-dss': { label: 'DSA', readBits: readDsaBits },
    'ecdsa-sha2-nistp256': { label: 'ECDSA', readBits: (reader) => readEcdsaBits(reader, 'nistp256') },
    'ecdsa-sha2-nistp384': { label: 'ECDSA', readBits: (reader) => readEcdsaBits(reader, 'nistp384') },
    'ecdsa-sha2-nistp521': { label: 'ECDSA', readBits: (reader) => readEcdsaBits(reader, 'nistp521') },
    'sk-ecdsa-sha2-nistp256@openssh.com': {
      label: 'ECDSA-SK',
      readBits: (reader) => withApplication(reader, readEcdsaBits(reader, 'nistp256')),
    },
  } satisfies Record<string, KeyLayout>),
);

const CURVE_BITS = new Map([
  ['nistp256', 256],
  ['nistp384', 384],
  ['nistp521', 521],
]);

/** The key's description, or why the blob is not a key OpenSSH would read. */
export function describeHostKeyBlob(blob: Buffer): HostKeyDescription | string {
  const reader = createBlobReader(blob);
  const keyType = reader.readString()?.toString('latin1');
  if (keyType === undefined) return 'the key does not start with its type';
  const layout = KEY_LAYOUTS.get(keyType);
  if (layout === undefined) return describeUnknownType(keyType);
  const bits = layout.readBits(reader);
  if (bits === undefined || !reader.isAtEnd()) return `the ${keyType} key is truncated or malformed`;
  return { keyType, label: layout.label, bits };
}

/** ssh2 cannot check host certificates (no cert-v01 support), so their lines are skipped like unknown types. */
function describeUnknownType(keyType: string): string {
  const shown = JSON.stringify(keyType.slice(0, 60));
  return keyType.includes('-cert-v01@')
    ? `${shown} is a host certificate, which Catalyst cannot check`
    : `${shown} is not a key type OpenSSH knows`;
}

function createBlobReader(blob: Buffer): BlobReader {
  let at = 0;
  return {
    readString() {
      if (blob.length - at < 4) return undefined;
      const length = blob.readUInt32BE(at);
      if (blob.length - at - 4 < length) return undefined;
      const value = blob.subarray(at + 4, at + 4 + length);
      at += 4 + length;
      return value;
    },
    isAtEnd: () => at === blob.length,
  };
}

function readEd25519Bits(reader: BlobReader): number | undefined {
  return reader.readString()?.length === 32 ? 256 : undefined;
}

/** Security keys append the FIDO application string (`ssh:` usually) after the public key. */
function withApplication(reader: BlobReader, bits: number | undefined): number | undefined {
  return bits !== undefined && reader.readString() !== undefined ? bits : undefined;
}

function readRsaBits(reader: BlobReader): number | undefined {
  const exponent = reader.readString();
  const modulus = reader.readString();
  return exponent === undefined || modulus === undefined ? undefined : mpintBits(modulus);
}

function readDsaBits(reader: BlobReader): number | undefined {
  const [p, q, g, y] = [reader.readString(), reader.readString(), reader.readString(), reader.readString()];
  return p === undefined || q === undefined || g === undefined || y === undefined ? undefined : mpintBits(p);
}

function readEcdsaBits(reader: BlobReader, curve: string): number | undefined {
  const named = reader.readString()?.toString('latin1');
  const point = reader.readString();
  return named === curve && point !== undefined && point.length > 0 ? CURVE_BITS.get(curve) : undefined;
}

/** `BN_num_bits` of an SSH mpint: big-endian, a leading zero byte only to keep it positive. */
function mpintBits(mpint: Buffer): number {
  const first = mpint.findIndex((byte) => byte !== 0);
  if (first < 0) return 0;
  const leading = mpint[first] ?? 0;
  return (mpint.length - first - 1) * 8 + (32 - Math.clz32(leading));
}
