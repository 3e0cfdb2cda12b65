import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPushReceiverKeys, decryptPushMessage, PushDecryptError } from './push-crypto.ts';

/** RFC 8291, Appendix A: the user agent's keys and the message the application server sent them. */
const RFC_8291 = {
  plaintext: 'When I grow up, I want to be a watermelon',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  authSecret: 'BTBZMqHH6r4Tts7J_aSIgg',
  body:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_' +
    'yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};

const fromBase64url = (text: string) => Buffer.from(text, 'base64url');

const rfcKeys = {
  privateKey: fromBase64url(RFC_8291.uaPrivate),
  publicKey: fromBase64url(RFC_8291.uaPublic),
  authSecret: fromBase64url(RFC_8291.authSecret),
};

describe('decryptPushMessage', () => {
  it("decrypts RFC 8291's worked example to its plaintext", () => {
    const plaintext = decryptPushMessage(fromBase64url(RFC_8291.body), rfcKeys);
    expect(plaintext.toString('utf8')).toBe(RFC_8291.plaintext);
  });

  it('refuses the example with one altered octet, or under another auth secret', () => {
    const altered = fromBase64url(RFC_8291.body);
    altered[altered.length - 20] = (altered[altered.length - 20] ?? 0) ^ 1;
    expect(() => decryptPushMessage(altered, rfcKeys)).toThrow(PushDecryptError);
    const otherAuth = { ...rfcKeys, authSecret: Buffer.alloc(16, 7) };
    expect(() => decryptPushMessage(fromBase64url(RFC_8291.body), otherAuth)).toThrow(/does not decrypt/);
  });

  it('refuses a header that is not aes128gcm with the sender key as key id, and a second record', () => {
    const body = fromBase64url(RFC_8291.body);
    expect(() => decryptPushMessage(body.subarray(0, 10), rfcKeys)).toThrow(
      /shorter than the aes128gcm header/,
    );
    const shortKeyId = Buffer.from(body);
    shortKeyId[20] = 0;
    expect(() => decryptPushMessage(shortKeyId, rfcKeys)).toThrow(/key id is 0 octets/);
    const smallRecords = Buffer.from(body);
    smallRecords.writeUInt32BE(40, 16);
    expect(() => decryptPushMessage(smallRecords, rfcKeys)).toThrow(/more than one record/);
  });
});

describe('createPushReceiverKeys', () => {
  it('makes a P-256 pair whose public point is its private key’s, and a 16-byte auth secret', () => {
    const keys = createPushReceiverKeys();
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(keys.privateKey);
    expect(ecdh.getPublicKey().equals(keys.publicKey)).toBe(true);
    expect(keys.publicKey).toHaveLength(65);
    expect(keys.authSecret).toHaveLength(16);
  });
});
