import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { openPushSubscriptions, PUSH_SUBSCRIPTIONS_FILE } from './push-subscription-store.ts';

const PHONE = 'session-00000000000000a1';
const LAPTOP = 'session-00000000000000b2';
const IDEA = 'idea-0123456789abcdef';
const OTHER_IDEA = 'idea-fedcba9876543210';

function browserSubscription(
  endpoint = `https://fcm.googleapis.com/fcm/send/${Math.random().toString(36).slice(2)}`,
) {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  return {
    endpoint,
    expirationTime: null,
    keys: { p256dh: point.toString('base64url'), auth: Buffer.alloc(16, 9).toString('base64url') },
  };
}

describe('openPushSubscriptions', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-push-subs-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const open = (allowLoopbackHttp = false) =>
    openPushSubscriptions({
      configDir: root,
      allowLoopbackHttp,
      now: () => Date.parse('2026-03-01T12:00:00Z'),
    });

  it('keeps subscriptions in <configDir>/push-subscriptions.json (0600) for the next start', async () => {
    const store = await open();
    const sent = browserSubscription();
    const kept = await store.add(PHONE, sent);
    expect(kept).toEqual({
      sessionId: PHONE,
      endpoint: sent.endpoint,
      keys: sent.keys,
      createdAt: '2026-03-01T12:00:00.000Z',
      mutedIdeas: [],
    });
    expect((await stat(join(root, PUSH_SUBSCRIPTIONS_FILE))).mode & 0o777).toBe(0o600);
    expect((await open()).list()).toEqual([kept]);
  });

  it('replaces a subscription of the same endpoint, keeping the device’s mutes', async () => {
    const store = await open();
    const first = browserSubscription();
    await store.add(PHONE, first);
    expect(
      await store.setMuted({ sessionId: PHONE, endpoint: first.endpoint, ideaId: IDEA, isMuted: true }),
    ).toBe(true);
    const renewed = { ...browserSubscription(first.endpoint) };
    await store.add(PHONE, renewed);
    expect(store.list()).toEqual([expect.objectContaining({ keys: renewed.keys, mutedIdeas: [IDEA] })]);
  });

  it('removes by endpoint (only the session’s own when a session is named), and all of a session', async () => {
    const store = await open();
    const phone = browserSubscription();
    const laptop = browserSubscription();
    const laptopOther = browserSubscription();
    await store.add(PHONE, phone);
    await store.add(LAPTOP, laptop);
    await store.add(LAPTOP, laptopOther);
    expect(await store.remove(phone.endpoint, { sessionId: LAPTOP })).toBe(false);
    expect(await store.remove(phone.endpoint)).toBe(true);
    expect(await store.remove(phone.endpoint)).toBe(false);
    expect(await store.removeSession(LAPTOP)).toBe(2);
    expect(store.list()).toEqual([]);
    expect((await open()).list()).toEqual([]);
  });

  it('mutes and unmutes an idea for the session’s own device only', async () => {
    const store = await open();
    const phone = browserSubscription();
    await store.add(PHONE, phone);
    const change = { sessionId: PHONE, endpoint: phone.endpoint, ideaId: OTHER_IDEA, isMuted: true };
    await store.setMuted(change);
    await store.setMuted({ ...change, ideaId: IDEA });
    expect(store.list()[0]?.mutedIdeas).toEqual([IDEA, OTHER_IDEA]);
    await store.setMuted({ ...change, isMuted: false });
    expect((await open()).list()[0]?.mutedIdeas).toEqual([IDEA]);
    expect(await store.setMuted({ ...change, sessionId: LAPTOP })).toBe(false);
    await expect(store.setMuted({ ...change, ideaId: '../etc' })).rejects.toThrow(/not an idea id/);
  });

  it('takes only https: endpoints, and http://127.0.0.1 when told to', async () => {
    const store = await open();
    for (const endpoint of [
      'http://push.example.net/x',
      'http://127.0.0.1:9/x',
      'https://user:pw@push.example.net/x',
    ]) {
      const error: unknown = await store
        .add(PHONE, browserSubscription(endpoint))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CatalystError);
      expect(String(error)).toMatch(/not a push subscription: endpoint: must be an https: URL/);
    }
    await expect(
      store.add(PHONE, { ...browserSubscription(), keys: { p256dh: 'x', auth: 'y' } }),
    ).rejects.toThrow(/keys.p256dh/);
    await expect(store.add('session-../../x', browserSubscription())).rejects.toThrow(
      /not a browser session id/,
    );
    expect(store.list()).toEqual([]);
    const forTests = await open(true);
    await forTests.add(PHONE, browserSubscription('http://127.0.0.1:9/x'));
    expect(forTests.list()).toHaveLength(1);
  });

  it('takes only the known push services’ hosts and those of CATALYST_PUSH_SERVICES, with UNSAFE_ARGUMENT', async () => {
    const store = await openPushSubscriptions({
      configDir: root,
      allowLoopbackHttp: false,
      pushServices: ['*.push.example.net'],
    });
    await store.add(PHONE, browserSubscription('https://eu.push.example.net/send/1'));
    for (const endpoint of [
      'https://push.example.net/x',
      'https://10.0.0.5/hook',
      'https://127.0.0.1:8443/x',
    ]) {
      const error: unknown = await store
        .add(PHONE, browserSubscription(endpoint))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'UNSAFE_ARGUMENT' });
      expect(String(error)).toMatch(/is not a known push service/);
    }
    expect(store.list().map((item) => item.endpoint)).toEqual(['https://eu.push.example.net/send/1']);
    // Without the setting, the next start sends it nothing more, and reads the file still.
    expect((await open()).list()).toEqual([]);
  });

  it('refuses another session’s endpoint with other keys; passes it to another session with the same keys', async () => {
    const store = await open();
    const device = browserSubscription();
    await store.add(PHONE, device);
    await store.setMuted({ sessionId: PHONE, endpoint: device.endpoint, ideaId: IDEA, isMuted: true });
    const error: unknown = await store
      .add(LAPTOP, browserSubscription(device.endpoint))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String(error)).toMatch(/another browser’s subscription/);
    expect(store.list()).toEqual([expect.objectContaining({ sessionId: PHONE, keys: device.keys })]);
    await store.add(LAPTOP, device);
    expect(store.list()).toEqual([expect.objectContaining({ sessionId: LAPTOP, mutedIdeas: [IDEA] })]);
  });

  it('keeps at most ten subscriptions per session, dropping the oldest', async () => {
    const store = await open();
    const made = [];
    for (let index = 0; index < 11; index += 1) made.push(await store.add(PHONE, browserSubscription()));
    expect(store.list().map((item) => item.endpoint)).toEqual(made.slice(1).map((item) => item.endpoint));
  });

  it('sets a damaged file aside as <name>.broken-<timestamp> and starts with none (issue 39)', async () => {
    const path = join(root, PUSH_SUBSCRIPTIONS_FILE);
    for (const body of [
      '',
      '[',
      '{"version":1}',
      '{"version":1,"subscriptions":[{"endpoint":"https://x"}]}',
    ]) {
      await writeFile(path, body, { mode: 0o600 });
      expect((await open()).list()).toEqual([]);
      const kept = (await readdir(root)).filter((name) =>
        name.startsWith(`${PUSH_SUBSCRIPTIONS_FILE}.broken-`),
      );
      expect(kept).toHaveLength(1);
      expect(await readFile(join(root, kept[0] ?? ''), 'utf8')).toBe(body);
      await rm(join(root, kept[0] ?? ''));
    }
  });

  it('leaves the list as it was when a change cannot be written', async () => {
    const store = await open();
    await mkdir(join(root, PUSH_SUBSCRIPTIONS_FILE));
    await expect(store.add(PHONE, browserSubscription())).rejects.toThrow(
      /cannot write the push subscriptions file/,
    );
    expect(store.list()).toEqual([]);
  });
});
