import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAttemptLimiter } from './attempt-limiter.ts';
import { bearerToken, cookieValues, createAuth, tokensEqual } from './auth.ts';
import { createLoginKeys, serializeClearedSessionCookie, serializeSessionCookie } from './login-cookie.ts';

const TOKEN = 'the-right-token-0123456789-abcdefghijklmnop';

function requestWith(headers: Record<string, string>, url = '/ws'): IncomingMessage {
  const request = new IncomingMessage(new Socket());
  request.headers = headers;
  request.url = url;
  return request;
}

describe('tokensEqual', () => {
  it('compares by content whatever the lengths (no throw on unequal lengths)', () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual(`${TOKEN.slice(0, -1)}X`, TOKEN)).toBe(false);
    expect(tokensEqual(TOKEN.slice(0, 5), TOKEN)).toBe(false);
    expect(tokensEqual(`${TOKEN}extra`, TOKEN)).toBe(false);
    expect(tokensEqual('', TOKEN)).toBe(false);
  });
});

describe('cookieValues', () => {
  it('reads every value of one name, trimmed, unquoted and percent-decoded, in the order sent', () => {
    const header = 'a=1; catalyst_token=x%2By%3D;  b = "two" ;flag; =nameless; b=three';
    expect(cookieValues(header, 'catalyst_token')).toEqual(['x+y=']);
    expect(cookieValues(header, 'b')).toEqual(['two', 'three']);
    expect(cookieValues(header, 'flag')).toEqual([]);
  });

  it('skips values that do not decode', () => {
    expect(cookieValues('t=%zz; t=ok', 't')).toEqual(['ok']);
    expect(cookieValues(undefined, 't')).toEqual([]);
  });
});

describe('bearerToken', () => {
  it('accepts only the Bearer scheme with one token', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`Basic ${TOKEN}`)).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });
});

describe('createAuth', () => {
  const auth = createAuth({ token: TOKEN, allowedOrigins: ['http://localhost:5173'] });
  const host = '127.0.0.1:7433';

  it('accepts the token from the header, never from the query string or a cookie', () => {
    expect(auth.checkRequest(requestWith({ host, authorization: `Bearer ${TOKEN}` })).ok).toBe(true);
    expect(auth.checkRequest(requestWith({ host, cookie: `catalyst_token=${TOKEN}` })).ok).toBe(false);
    expect(auth.checkRequest(requestWith({ host, cookie: `catalyst_session=${TOKEN}` })).ok).toBe(false);
    expect(auth.checkRequest(requestWith({ host }, `/ws?token=${TOKEN}`))).toMatchObject({
      ok: false,
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(auth.checkRequest(requestWith({ host, authorization: 'Bearer wrong' })).ok).toBe(false);
  });

  it('accepts a browser session only as both halves: the cookie and its key (header or subprotocol)', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    const cookie = `catalyst_session=${id}`;
    const accepted = (headers: Record<string, string>) =>
      auth.checkRequest(requestWith({ host, ...headers })).ok;
    expect(accepted({ cookie, 'x-catalyst-key': key })).toBe(true);
    expect(accepted({ cookie, 'sec-websocket-protocol': `other, catalyst-key.${key}` })).toBe(true);
    expect(accepted({ cookie })).toBe(false);
    expect(accepted({ 'x-catalyst-key': key })).toBe(false);
    const other = await auth.startLogin('Firefox on Android');
    expect(accepted({ cookie, 'x-catalyst-key': other.key })).toBe(false);
    expect(accepted({ cookie: `catalyst_session=${other.id}`, 'x-catalyst-key': key })).toBe(false);
    expect(accepted({ cookie, 'x-catalyst-key': `${key}x` })).toBe(false);
  });

  it('is not locked out by a same-named cookie another port of the host set with a more specific path', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    const shadowed = `catalyst_session=planted; catalyst_session=${id}`;
    expect(auth.checkRequest(requestWith({ host, cookie: shadowed, 'x-catalyst-key': key })).ok).toBe(true);
  });

  it('keeps the live session a login request’s cookie names, and none that has ended (issue 40)', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    expect(
      auth.keptLogin(requestWith({ host, cookie: `catalyst_session=planted; catalyst_session=${id}` })),
    ).toEqual({ id, key });
    expect(auth.keptLogin(requestWith({ host }))).toBeUndefined();
    for (const listed of auth.logins.list()) await auth.logins.end(listed.id);
    expect(auth.keptLogin(requestWith({ host, cookie: `catalyst_session=${id}` }))).toBeUndefined();
  });

  it('ties a session to the token: another token’s server refuses it, the same token’s accepts it', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    expect(createLoginKeys(TOKEN).isValidLogin(id, key)).toBe(true);
    expect(createLoginKeys(`${TOKEN}-rotated`).isValidLogin(id, key)).toBe(false);
  });

  it('judges a request with another Authorization scheme (a proxy’s Basic) by its session alone', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    const cookie = `catalyst_session=${id}`;
    for (const authorization of ['Basic cGVyc29uOnB3', `Basic ${TOKEN}`, 'Digest x', 'Bearerish x']) {
      expect(auth.checkRequest(requestWith({ host, authorization, cookie, 'x-catalyst-key': key })).ok).toBe(
        true,
      );
      expect(auth.checkRequest(requestWith({ host, authorization, cookie })).ok).toBe(false);
      expect(auth.checkRequest(requestWith({ host, authorization })).ok).toBe(false);
    }
    const wrongBearer = { host, authorization: 'bearer wrong', cookie, 'x-catalyst-key': key };
    expect(auth.checkRequest(requestWith(wrongBearer)).ok).toBe(false);
    expect(
      auth.loginOf(requestWith({ host, authorization: `Bearer ${TOKEN}`, cookie, 'x-catalyst-key': key })),
    ).toBeUndefined();
  });

  it('refuses a session the server does not keep: signed out, or never started by it', async () => {
    const { id, key } = await auth.startLogin('Chrome on Linux');
    const headers = { host, cookie: `catalyst_session=${id}`, 'x-catalyst-key': key };
    const session = auth.loginOf(requestWith(headers));
    expect(session?.name).toBe('Chrome on Linux');
    expect(await auth.logins.end(session?.id ?? '')).toBe(true);
    expect(auth.checkRequest(requestWith(headers)).ok).toBe(false);
    // Both halves made with the token, but no login made them: a forged pair from someone who holds the token.
    const forged = createLoginKeys(TOKEN).startLogin();
    const forgedHeaders = { host, cookie: `catalyst_session=${forged.id}`, 'x-catalyst-key': forged.key };
    expect(auth.checkRequest(requestWith(forgedHeaders)).ok).toBe(false);
  });

  it('allows the app’s own origin and configured ones, refuses others and "null"', () => {
    const withOrigin = (origin: string) =>
      auth.checkRequest(requestWith({ host, origin, authorization: `Bearer ${TOKEN}` }));
    expect(withOrigin(`http://${host}`).ok).toBe(true);
    expect(withOrigin(`https://${host}`).ok).toBe(true);
    expect(withOrigin('http://localhost:5173').ok).toBe(true);
    for (const origin of [
      'http://evil.example',
      'null',
      `http://${host}.evil.example`,
      'http://127.0.0.1:9999',
    ]) {
      expect(withOrigin(origin)).toMatchObject({ ok: false, status: 403, code: 'FORBIDDEN_ORIGIN' });
    }
  });

  it('lets a client without Origin in only with the token', () => {
    expect(auth.checkOrigin(requestWith({ host }))).toBe('absent');
    expect(auth.checkRequest(requestWith({ host })).ok).toBe(false);
    expect(auth.checkRequest(requestWith({ host, authorization: `Bearer ${TOKEN}` })).ok).toBe(true);
  });
});

describe('createAuth, against Bearer guesses', () => {
  it('counts a wrong Bearer, refuses every Bearer with 429 while the address waits, and never counts no credential', () => {
    let now = 0;
    const attempts = createAttemptLimiter({ freeFailures: 2, baseDelayMs: 5_000, now: () => now });
    const auth = createAuth({ token: TOKEN, attempts });
    const host = '127.0.0.1:7433';
    const check = (headers: Record<string, string>) => auth.checkRequest(requestWith({ host, ...headers }));
    const unauthorized = { status: 401, isNewlyThrottled: false };
    for (let attempt = 0; attempt < 10; attempt++) expect(check({})).toMatchObject(unauthorized);
    expect(check({ authorization: 'Basic x' })).toMatchObject(unauthorized);
    expect(check({ authorization: 'Bearer wrong' })).toMatchObject({ status: 401, isNewlyThrottled: false });
    expect(check({ authorization: 'Bearer' })).toMatchObject({ status: 401, isNewlyThrottled: true });
    expect(check({ authorization: `Bearer ${TOKEN}` })).toMatchObject({
      ok: false,
      status: 429,
      code: 'UNAUTHORIZED',
      retryAfterSeconds: 5,
    });
    expect(check({})).toMatchObject(unauthorized);
    now += 5_000;
    expect(check({ authorization: `Bearer ${TOKEN}` })).toEqual({ ok: true });
  });
});

describe('serializeClearedSessionCookie', () => {
  it('removes the cookie with the same attributes', () => {
    expect(serializeClearedSessionCookie({ secure: false })).toBe(
      'catalyst_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0',
    );
    expect(serializeClearedSessionCookie({ secure: true })).toBe(
      'catalyst_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure',
    );
  });
});

describe('serializeSessionCookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/, and Secure only when asked', () => {
    expect(serializeSessionCookie('abc', { secure: false })).toBe(
      'catalyst_session=abc; HttpOnly; SameSite=Strict; Path=/',
    );
    expect(serializeSessionCookie('abc', { secure: true })).toBe(
      'catalyst_session=abc; HttpOnly; SameSite=Strict; Path=/; Secure',
    );
  });
});
