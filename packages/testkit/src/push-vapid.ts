import { createPublicKey, verify } from 'node:crypto';
import { z } from 'zod';

/**
 * A push service's check of an application server's VAPID credentials (RFC 8292), with node:crypto alone:
 * `Authorization: vapid t=<JWT>, k=<public key>`, the JWT signed ES256 with the key `k` names, its `aud` the
 * endpoint's origin, its `exp` ahead but at most 24 hours ahead, its `sub` a mailto: or https: URL.
 */

export interface VapidExpectations {
  /** The origin of the endpoint the request went to. */
  audience: string;
  nowSeconds: number;
  /** The key the subscription was made with (`applicationServerKey`), when it was restricted to one. */
  applicationServerKey?: string;
}

export interface VapidCredentials {
  /** `k`: the application server's public key, base64url. */
  readonly publicKey: string;
  readonly claims: VapidClaims;
}

/** Why a push service refuses the credentials; `status` is its answer (RFC 8292 §4.2). */
export class VapidError extends Error {
  override readonly name = 'VapidError';
  readonly status: 401 | 403;
  constructor(message: string, status: 401 | 403 = 401) {
    super(message);
    this.status = status;
  }
}

const MAX_EXPIRY_SECONDS = 24 * 60 * 60;

const JwtHeaderSchema = z.object({ alg: z.literal('ES256'), typ: z.literal('JWT').optional() });
const VapidClaimsSchema = z.object({ aud: z.string(), exp: z.number().int(), sub: z.string() });
type VapidClaims = z.infer<typeof VapidClaimsSchema>;

export function verifyVapidAuthorization(
  header: string | undefined,
  expected: VapidExpectations,
): VapidCredentials {
  const { token, publicKey } = parseAuthorization(header);
  const [encodedHeader, encodedClaims, encodedSignature, ...rest] = token.split('.');
  if (encodedHeader === undefined || encodedClaims === undefined || encodedSignature === undefined) {
    throw new VapidError('t is not a JWT of three parts');
  }
  if (rest.length > 0) throw new VapidError('t is not a JWT of three parts');
  if (!JwtHeaderSchema.safeParse(parseJsonPart(encodedHeader)).success) {
    throw new VapidError('the JWT header is not {"alg":"ES256"}');
  }
  const signature = Buffer.from(encodedSignature, 'base64url');
  const isSigned =
    signature.length === 64 &&
    verify(
      'sha256',
      Buffer.from(`${encodedHeader}.${encodedClaims}`),
      { key: publicKeyObject(publicKey), dsaEncoding: 'ieee-p1363' },
      signature,
    );
  if (!isSigned) throw new VapidError('the JWT signature is not the key k’s');
  const claims = VapidClaimsSchema.safeParse(parseJsonPart(encodedClaims));
  if (!claims.success) throw new VapidError('the JWT claims lack aud, exp or sub');
  checkClaims(claims.data, expected);
  if (expected.applicationServerKey !== undefined && expected.applicationServerKey !== publicKey) {
    throw new VapidError('k is not the key the subscription was made with', 403);
  }
  return { publicKey, claims: claims.data };
}

function parseAuthorization(header: string | undefined): { token: string; publicKey: string } {
  const match = /^vapid\s+(.+)$/i.exec(header ?? '');
  if (match?.[1] === undefined) throw new VapidError('no "Authorization: vapid" header');
  const parameters = new Map<string, string>();
  for (const part of match[1].split(',')) {
    const equals = part.indexOf('=');
    if (equals > 0) parameters.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  const token = parameters.get('t');
  const publicKey = parameters.get('k');
  if (token === undefined || publicKey === undefined) throw new VapidError('the vapid header lacks t or k');
  return { token, publicKey };
}

function publicKeyObject(publicKey: string) {
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) {
    throw new VapidError('k is not an uncompressed P-256 public key (65 octets)');
  }
  try {
    return createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  } catch (error) {
    throw new VapidError(`k is not a point of P-256 (${String(error)})`);
  }
}

function checkClaims(claims: VapidClaims, expected: VapidExpectations): void {
  if (claims.aud !== expected.audience) {
    throw new VapidError(`aud is ${claims.aud}, not the endpoint's origin ${expected.audience}`);
  }
  if (claims.exp <= expected.nowSeconds) throw new VapidError('the JWT has expired');
  if (claims.exp > expected.nowSeconds + MAX_EXPIRY_SECONDS) {
    throw new VapidError('exp is more than 24 hours ahead');
  }
  if (!isContactUrl(claims.sub)) throw new VapidError('sub is not a mailto: or https: URL');
}

function isContactUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'mailto:' || (url.protocol === 'https:' && url.hostname !== '');
  } catch {
    return false;
  }
}

function parseJsonPart(encoded: string): unknown {
  try {
    return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
