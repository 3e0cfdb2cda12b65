import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { API, ApiErrorBodySchema, apiPath } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';

// Issue 39, finding 1: a push subscription's endpoint is where Catalyst POSTs, so a signed-in browser (a paired
// phone included) could make Catalyst POST to any https URL: its own port, a cloud's metadata service, the LAN.
// Through the real HTTP API of a whole Catalyst with its default settings: only the known push services' hosts
// are taken, and one browser cannot take over another's subscription.

const fixture = useServiceFixture();

interface Browser {
  readonly cookie: string;
  readonly key: string;
}

async function logIn(catalyst: ServiceUnderTest): Promise<Browser> {
  const url = catalyst.catalyst.url;
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ token: catalyst.catalyst.token }),
  });
  expect(login.status).toBe(200);
  const { key } = z.object({ key: z.string() }).parse(await login.json());
  return { cookie: (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '', key };
}

function post(catalyst: ServiceUnderTest, browser: Browser, path: string, body: unknown): Promise<Response> {
  const url = catalyst.catalyst.url;
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      cookie: browser.cookie,
      'x-catalyst-key': browser.key,
      origin: url,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
}

/** `PushSubscription.toJSON()` of a device: a real P-256 point and auth secret, at `endpoint`. */
function subscriptionAt(endpoint: string) {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  return {
    endpoint,
    expirationTime: null,
    keys: { p256dh: point.toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

const fcmEndpoint = () => `https://fcm.googleapis.com/fcm/send/${randomBytes(12).toString('base64url')}`;

describe('push subscription endpoints', () => {
  it.each([
    'https://127.0.0.1:8443/x',
    'https://169.254.169.254/latest',
    'https://10.0.0.5/hook',
    'https://localhost/x',
    'https://[::1]/x',
    'https://push.example.net/send/abc',
    'https://fcm.googleapis.com.evil.example/x',
    'https://fcm.googleapis.com:8443/fcm/send/abc',
  ])('refuses %s with 400 UNSAFE_ARGUMENT, and keeps nothing', async (endpoint) => {
    const browser = await logIn(fixture.service);
    const answer = await post(
      fixture.service,
      browser,
      API.addPushSubscription.path,
      subscriptionAt(endpoint),
    );
    expect(answer.status).toBe(400);
    const { error } = ApiErrorBodySchema.parse(await answer.json());
    expect(error.code).toBe('UNSAFE_ARGUMENT');
    expect(error.message).toMatch(/not a known push service/);
    expect(error.message).toContain('CATALYST_PUSH_SERVICES');
  });

  it.each([
    fcmEndpoint(),
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABo',
    'https://web.push.apple.com/QGq1',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
  ])('takes a subscription of a known push service: %s', async (endpoint) => {
    const browser = await logIn(fixture.service);
    const answer = await post(
      fixture.service,
      browser,
      API.addPushSubscription.path,
      subscriptionAt(endpoint),
    );
    expect(answer.status).toBe(201);
    expect(API.addPushSubscription.response.parse(await answer.json()).subscription.endpoint).toBe(endpoint);
  });

  it('refuses another browser’s endpoint with other keys, and leaves it its owner’s; the same device signed in again takes it', async () => {
    const phone = await logIn(fixture.service);
    const intruder = await logIn(fixture.service);
    const device = subscriptionAt(fcmEndpoint());
    expect((await post(fixture.service, phone, API.addPushSubscription.path, device)).status).toBe(201);

    const stolen = { ...subscriptionAt(device.endpoint) };
    const taken = await post(fixture.service, intruder, API.addPushSubscription.path, stolen);
    expect(taken.status).toBe(400);
    const { error } = ApiErrorBodySchema.parse(await taken.json());
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/another browser/);
    // Still the phone's: it mutes an idea on it; the intruder cannot.
    const idea = await fixture.service.createIdea('Owned by the phone');
    const mutePath = apiPath(API.mutePushIdea, { params: { id: idea.id } });
    const mute = { endpoint: device.endpoint, isMuted: true };
    expect((await post(fixture.service, phone, mutePath, mute)).status).toBe(200);
    expect((await post(fixture.service, intruder, mutePath, mute)).status).toBe(400);

    // The same browser after a new login (its cookie cleared): the same endpoint and keys, so the same device.
    const again = await logIn(fixture.service);
    const renewed = await post(fixture.service, again, API.addPushSubscription.path, device);
    expect(renewed.status).toBe(201);
    expect(API.addPushSubscription.response.parse(await renewed.json()).subscription.mutedIdeas).toEqual([
      idea.id,
    ]);
  });
});
