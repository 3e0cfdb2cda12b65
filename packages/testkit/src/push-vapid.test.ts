import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyVapidAuthorization, VapidError } from './push-vapid.ts';

const AUDIENCE = 'https://push.example.net';
const NOW = 1_800_000_000;

function createSigner() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  return { privateKey, k: point.toString('base64url') };
}

function signJwt(
  privateKey: KeyObject,
  claims: object,
  header: object = { typ: 'JWT', alg: 'ES256' },
): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode(header)}.${encode(claims)}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

const goodClaims = { aud: AUDIENCE, exp: NOW + 12 * 3600, sub: 'mailto:ops@example.net' };

function refusal(header: string | undefined, applicationServerKey?: string): VapidError {
  try {
    verifyVapidAuthorization(header, {
      audience: AUDIENCE,
      nowSeconds: NOW,
      ...(applicationServerKey === undefined ? {} : { applicationServerKey }),
    });
  } catch (error) {
    if (error instanceof VapidError) return error;
    throw error;
  }
  throw new Error('expected the credentials to be refused');
}

describe('verifyVapidAuthorization', () => {
  const signer = createSigner();

  it('accepts a JWT signed by k for the endpoint’s origin, and says what it claimed', () => {
    const header = `vapid t=${signJwt(signer.privateKey, goodClaims)}, k=${signer.k}`;
    const credentials = verifyVapidAuthorization(header, {
      audience: AUDIENCE,
      nowSeconds: NOW,
      applicationServerKey: signer.k,
    });
    expect(credentials).toEqual({ publicKey: signer.k, claims: goodClaims });
  });

  it('refuses a signature by another key, or a token altered after signing', () => {
    const other = createSigner();
    expect(refusal(`vapid t=${signJwt(other.privateKey, goodClaims)}, k=${signer.k}`).message).toMatch(
      /signature/,
    );
    const token = signJwt(signer.privateKey, goodClaims);
    const [head, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...goodClaims, aud: 'https://other.example' })).toString(
      'base64url',
    );
    expect(refusal(`vapid t=${head ?? ''}.${forged}.${signature ?? ''}, k=${signer.k}`).message).toMatch(
      /signature/,
    );
  });

  it('refuses another audience, an expired token, one valid beyond 24 hours, and a sub that is no contact', () => {
    const withClaims = (claims: object) => `vapid t=${signJwt(signer.privateKey, claims)}, k=${signer.k}`;
    expect(refusal(withClaims({ ...goodClaims, aud: 'https://push.example.net:8443' })).message).toMatch(
      /aud/,
    );
    expect(refusal(withClaims({ ...goodClaims, exp: NOW })).message).toMatch(/expired/);
    expect(refusal(withClaims({ ...goodClaims, exp: NOW + 24 * 3600 + 1 })).message).toMatch(/24 hours/);
    expect(refusal(withClaims({ ...goodClaims, sub: 'http://example.net' })).message).toMatch(/sub/);
    expect(refusal(withClaims({ aud: AUDIENCE, exp: goodClaims.exp })).message).toMatch(/lack/);
  });

  it('refuses a missing or malformed header, another algorithm, and a key the subscription was not made with', () => {
    expect(refusal(undefined).message).toMatch(/no "Authorization: vapid"/);
    expect(refusal(`WebPush ${signJwt(signer.privateKey, goodClaims)}`).message).toMatch(/no "Authorization/);
    expect(refusal(`vapid t=${signJwt(signer.privateKey, goodClaims)}`).message).toMatch(/lacks t or k/);
    expect(refusal(`vapid t=a.b, k=${signer.k}`).message).toMatch(/three parts/);
    const hs256 = signJwt(signer.privateKey, goodClaims, { alg: 'HS256' });
    expect(refusal(`vapid t=${hs256}, k=${signer.k}`).message).toMatch(/ES256/);
    expect(refusal(`vapid t=${signJwt(signer.privateKey, goodClaims)}, k=AAAA`).message).toMatch(/65 octets/);
    const restricted = refusal(
      `vapid t=${signJwt(signer.privateKey, goodClaims)}, k=${signer.k}`,
      createSigner().k,
    );
    expect(restricted.status).toBe(403);
  });
});
