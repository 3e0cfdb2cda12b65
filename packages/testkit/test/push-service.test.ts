import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPushService, type MockPushService } from '../src/push-service.ts';

// What the mock refuses, over real HTTP. What it accepts, and decrypts, is proven by RFC 8291's example
// (src/push-crypto.test.ts) and by Catalyst's sender (packages/backend/test/push-sender.test.ts).

function vapidHeader(audience: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const k = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]).toString('base64url');
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { aud: audience, exp: Math.floor(Date.now() / 1000) + 3600, sub: 'mailto:test@example.net' };
  const input = `${encode({ typ: 'JWT', alg: 'ES256' })}.${encode(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `vapid t=${input}.${signature.toString('base64url')}, k=${k}`;
}

describe('the mock push service', () => {
  let service: MockPushService;
  beforeEach(async () => {
    service = await startMockPushService();
  });
  afterEach(async () => {
    await service.close();
  });

  const post = (endpoint: string, headers: Record<string, string>, body: Buffer = Buffer.alloc(100)) =>
    fetch(endpoint, { method: 'POST', headers, body });

  it('answers 404 for an endpoint it never made', async () => {
    const response = await post(`${service.origin}/push/unknown`, {});
    expect(response.status).toBe(404);
  });

  it('refuses a push without VAPID (401), and a waiting test hears why at once', async () => {
    const { endpoint } = service.createSubscription();
    const refused = expect(service.nextMessage({ timeoutMs: 30_000 })).rejects.toThrow(
      /refused a push \(401\): VAPID: no "Authorization: vapid" header/,
    );
    const response = await post(endpoint, { ttl: '60', 'content-encoding': 'aes128gcm' });
    expect(response.status).toBe(401);
    await refused;
    expect(service.messages).toEqual([]);
  });

  it('refuses a push without TTL or aes128gcm (400), over 4096 octets (413), or that does not decrypt (400)', async () => {
    const { endpoint } = service.createSubscription();
    const authorization = vapidHeader(service.origin);
    const good = { authorization, ttl: '60', 'content-encoding': 'aes128gcm' };
    expect((await post(endpoint, { ...good, ttl: 'soon' })).status).toBe(400);
    expect((await post(endpoint, { ...good, 'content-encoding': 'aesgcm' })).status).toBe(400);
    expect((await post(endpoint, good, Buffer.alloc(4097))).status).toBe(413);
    expect((await post(endpoint, good, Buffer.alloc(200))).status).toBe(400);
    expect(service.refusals.map((refusal) => refusal.reason)).toEqual([
      'no TTL header of seconds',
      'Content-Encoding is not aes128gcm',
      'the body is 4097 octets, over 4096',
      'encryption: the key id is 0 octets, not the 65 of a P-256 public key',
    ]);
    expect(service.requests()).toEqual([]);
  });

  it('refuses a JWT made for another push service', async () => {
    const { endpoint } = service.createSubscription();
    const headers = {
      authorization: vapidHeader('https://fcm.googleapis.com'),
      ttl: '60',
      'content-encoding': 'aes128gcm',
    };
    expect((await post(endpoint, headers)).status).toBe(401);
    expect(service.refusals[0]?.reason).toMatch(
      /aud is https:\/\/fcm.googleapis.com, not the endpoint's origin/,
    );
  });
});
