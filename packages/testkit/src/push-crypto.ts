import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A browser's half of Web Push message encryption (RFC 8291 over RFC 8188's aes128gcm), written from the RFCs with
 * node:crypto alone, so that the mock push service checks Catalyst's sender (the `web-push` package) independently
 * of it. Proven against RFC 8291's worked example (push-crypto.test.ts).
 */

/** What a browser keeps for one subscription: its P-256 key pair and the 16-byte auth secret. */
export interface PushReceiverKeys {
  /** The 32-byte private scalar. */
  readonly privateKey: Buffer;
  /** The 65-byte uncompressed point, `keys.p256dh` of the subscription. */
  readonly publicKey: Buffer;
  /** `keys.auth` of the subscription. */
  readonly authSecret: Buffer;
}

export class PushDecryptError extends Error {
  override readonly name = 'PushDecryptError';
}

const SALT_LENGTH = 16;
const HEADER_LENGTH = SALT_LENGTH + 4 + 1;
const POINT_LENGTH = 65;
const TAG_LENGTH = 16;
/** RFC 8188 §2: a record holds at least one octet of padding delimiter and the tag. */
const MIN_RECORD_SIZE = TAG_LENGTH + 2;
const LAST_RECORD_DELIMITER = 0x02;

/** A key pair and auth secret as `PushManager.subscribe()` makes them. */
export function createPushReceiverKeys(): PushReceiverKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    privateKey: ecdh.getPrivateKey(),
    publicKey: ecdh.getPublicKey(),
    authSecret: randomBytes(16),
  };
}

/** The plaintext of one aes128gcm push message body; throws PushDecryptError saying what is wrong with it. */
export function decryptPushMessage(body: Buffer, keys: PushReceiverKeys): Buffer {
  if (body.length < HEADER_LENGTH)
    throw new PushDecryptError('the body is shorter than the aes128gcm header');
  const salt = body.subarray(0, SALT_LENGTH);
  const recordSize = body.readUInt32BE(SALT_LENGTH);
  const keyIdLength = body[SALT_LENGTH + 4];
  // RFC 8291 §4: the key id is the application server's ephemeral public key, uncompressed.
  if (keyIdLength !== POINT_LENGTH) {
    throw new PushDecryptError(`the key id is ${keyIdLength} octets, not the 65 of a P-256 public key`);
  }
  const senderPublicKey = body.subarray(HEADER_LENGTH, HEADER_LENGTH + POINT_LENGTH);
  const record = body.subarray(HEADER_LENGTH + POINT_LENGTH);
  if (recordSize < MIN_RECORD_SIZE) throw new PushDecryptError(`the record size ${recordSize} is below 18`);
  // RFC 8291 §4: "An application server MUST encrypt a push message with a single record."
  if (record.length > recordSize) throw new PushDecryptError('the message has more than one record');
  if (record.length < TAG_LENGTH + 1) throw new PushDecryptError('the record is shorter than its tag');

  const { contentKey, nonce } = deriveRecordKeys(keys, senderPublicKey, salt);
  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - TAG_LENGTH));
  let padded: Buffer;
  try {
    padded = Buffer.concat([
      decipher.update(record.subarray(0, record.length - TAG_LENGTH)),
      decipher.final(),
    ]);
  } catch (error) {
    throw new PushDecryptError('the record does not decrypt (wrong keys, or altered on the way)', {
      cause: error,
    });
  }
  return removePadding(padded);
}

/** RFC 8291 §3.4 (the input keying material) and RFC 8188 §2.2–2.3 (the content key and nonce of record 0). */
function deriveRecordKeys(
  keys: PushReceiverKeys,
  senderPublicKey: Buffer,
  salt: Buffer,
): { contentKey: Buffer; nonce: Buffer } {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(keys.privateKey);
  let sharedSecret: Buffer;
  try {
    sharedSecret = ecdh.computeSecret(senderPublicKey);
  } catch (error) {
    throw new PushDecryptError('the key id is not a point of P-256', { cause: error });
  }
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.publicKey, senderPublicKey]);
  const inputKey = Buffer.from(hkdfSync('sha256', sharedSecret, keys.authSecret, keyInfo, 32));
  const derive = (info: string, length: number) =>
    Buffer.from(hkdfSync('sha256', inputKey, salt, Buffer.from(info), length));
  // The nonce of record i is this XOR i; a push message is record 0 alone.
  return {
    contentKey: derive('Content-Encoding: aes128gcm\0', 16),
    nonce: derive('Content-Encoding: nonce\0', 12),
  };
}

/** RFC 8188 §2: the plaintext, then a delimiter (2 for the last record), then any number of zeros. */
function removePadding(padded: Buffer): Buffer {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (end < 0) throw new PushDecryptError('the record has no padding delimiter');
  if (padded[end] !== LAST_RECORD_DELIMITER) {
    throw new PushDecryptError(`the padding delimiter is ${padded[end]}, not the 2 of a last record`);
  }
  return padded.subarray(0, end);
}
