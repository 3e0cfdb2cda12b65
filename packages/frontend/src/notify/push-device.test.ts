import type { PushSubscriptionBody, PushSubscriptionView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  PushDevice,
  decodeBase64Url,
  isMutedHere,
  type BrowserSubscription,
  type PushPorts,
} from './push-device.ts';

// Push on this device: asked for only by enable() (a click), kept on Catalyst, muted per idea, ended on both sides.

const KEY = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';
const endpoint = 'https://push.example/send/abc';
const ideaId = 'idea-0123456789abcdef';

interface FakeBrowser {
  permission: NotificationPermission;
  answer: NotificationPermission;
  held: BrowserSubscription | null;
  calls: string[];
  workerKey: boolean;
  muted: string[];
  isServerDown: boolean;
}

function browserSubscription(browser: FakeBrowser, key: Uint8Array): BrowserSubscription {
  return {
    endpoint,
    options: { applicationServerKey: key.slice().buffer },
    toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'p256dh-key', auth: 'auth-secret' } }),
    unsubscribe: () => {
      browser.calls.push('unsubscribe');
      browser.held = null;
      return Promise.resolve(true);
    },
  };
}

function fakePorts(browser: FakeBrowser, options: { isSupported?: boolean } = {}): PushPorts {
  const view = (): PushSubscriptionView => ({
    endpoint,
    createdAt: '2026-01-01T00:00:00.000Z',
    mutedIdeas: [...browser.muted],
  });
  const server = <T>(call: string, answer: () => T): Promise<T> => {
    browser.calls.push(call);
    return browser.isServerDown ? Promise.reject(new Error('down')) : Promise.resolve(answer());
  };
  return {
    pushManager: () =>
      Promise.resolve(
        options.isSupported === false
          ? undefined
          : {
              getSubscription: () => Promise.resolve(browser.held),
              subscribe: ({ applicationServerKey }) => {
                browser.calls.push('subscribe');
                browser.held = browserSubscription(browser, applicationServerKey);
                return Promise.resolve(browser.held);
              },
            },
      ),
    permission: () => browser.permission,
    requestPermission: () => {
      browser.calls.push('requestPermission');
      browser.permission = browser.answer;
      return Promise.resolve(browser.answer);
    },
    keepWorkerKey: (on) => {
      browser.workerKey = on;
      return Promise.resolve();
    },
    api: {
      pushKey: () => server('pushKey', () => KEY),
      addPushSubscription: (body: PushSubscriptionBody) =>
        server(`add ${body.endpoint} ${body.keys.auth}`, view),
      removePushSubscription: (at) => server(`remove ${at}`, () => undefined),
      mutePushIdea: (id, at, isMuted) =>
        server(`mute ${id} ${String(isMuted)}`, () => {
          browser.muted = isMuted ? [id] : [];
          return view();
        }),
    },
    describeError: (error) => (error instanceof Error ? error.message : 'unknown'),
  };
}

function newBrowser(overrides: Partial<FakeBrowser> = {}): FakeBrowser {
  return {
    permission: 'default',
    answer: 'granted',
    held: null,
    calls: [],
    workerKey: false,
    muted: [],
    isServerDown: false,
    ...overrides,
  };
}

describe('PushDevice', () => {
  it('asks nothing on start, and subscribes with Catalyst`s key only on enable', async () => {
    const browser = newBrowser();
    const device = new PushDevice(fakePorts(browser));
    await device.start();
    expect(device.state).toEqual({ kind: 'off' });
    expect(browser.calls).toEqual([]);

    await device.enable();
    expect(browser.calls).toEqual([
      'requestPermission',
      'pushKey',
      'subscribe',
      `add ${endpoint} auth-secret`,
    ]);
    expect(device.state).toMatchObject({ kind: 'on', subscription: { endpoint, mutedIdeas: [] } });
    expect(new Uint8Array(browser.held?.options.applicationServerKey ?? new ArrayBuffer(0))).toEqual(
      decodeBase64Url(KEY),
    );
    expect(decodeBase64Url(KEY)).toHaveLength(65);
    expect(browser.workerKey).toBe(true);
  });

  it('does not keep a subscription made with keys Catalyst no longer has (its key file was made anew)', async () => {
    const browser = newBrowser({ permission: 'granted' });
    const other = decodeBase64Url(KEY).slice();
    other[1] = (other[1] ?? 0) ^ 0xff;
    browser.held = browserSubscription(browser, other);
    const device = new PushDevice(fakePorts(browser));
    await device.start();
    expect(device.state).toEqual({ kind: 'off' });
    expect(browser.calls).toEqual(['pushKey']);

    await device.enable();
    expect(browser.calls.slice(1)).toEqual([
      'requestPermission',
      'pushKey',
      'unsubscribe',
      'subscribe',
      `add ${endpoint} auth-secret`,
    ]);
    expect(device.state).toMatchObject({ kind: 'on' });
  });

  it('is blocked when the browser says no, off when the prompt is dismissed, and not offered without push', async () => {
    const denied = new PushDevice(fakePorts(newBrowser({ answer: 'denied' })));
    await denied.enable();
    expect(denied.state).toEqual({ kind: 'blocked' });

    const dismissed = newBrowser({ answer: 'default' });
    const device = new PushDevice(fakePorts(dismissed));
    await device.enable();
    expect(device.state).toEqual({ kind: 'off' });
    expect(dismissed.calls).toEqual(['requestPermission']);

    const blocked = new PushDevice(fakePorts(newBrowser({ permission: 'denied' })));
    await blocked.start();
    expect(blocked.state).toEqual({ kind: 'blocked' });

    const unsupported = new PushDevice(fakePorts(newBrowser(), { isSupported: false }));
    await unsupported.start();
    expect(unsupported.state).toEqual({ kind: 'unsupported' });
  });

  it('keeps a subscription the browser still holds on this session at start, with its muted ideas', async () => {
    const browser = newBrowser({ permission: 'granted', muted: [ideaId] });
    browser.held = browserSubscription(browser, decodeBase64Url(KEY));
    const device = new PushDevice(fakePorts(browser));
    await device.start();
    expect(browser.calls).toEqual(['pushKey', `add ${endpoint} auth-secret`]);
    expect(isMutedHere(device.state, ideaId)).toBe(true);
  });

  it('replaces a subscription made with another key', async () => {
    const browser = newBrowser();
    browser.held = browserSubscription(browser, new Uint8Array(65).fill(4));
    const device = new PushDevice(fakePorts(browser));
    await device.enable();
    expect(browser.calls).toEqual([
      'requestPermission',
      'pushKey',
      'unsubscribe',
      'subscribe',
      `add ${endpoint} auth-secret`,
    ]);
    expect(device.state.kind).toBe('on');
  });

  it('mutes and unmutes one idea, and says so when Catalyst cannot be reached', async () => {
    const browser = newBrowser();
    const device = new PushDevice(fakePorts(browser));
    await device.enable();
    await device.setMuted(ideaId, true);
    expect(isMutedHere(device.state, ideaId)).toBe(true);
    await device.setMuted(ideaId, false);
    expect(isMutedHere(device.state, ideaId)).toBe(false);
    browser.isServerDown = true;
    await device.setMuted(ideaId, true);
    expect(device.state).toMatchObject({ kind: 'on', problem: 'down' });
    expect(isMutedHere(device.state, ideaId)).toBe(false);
  });

  it('turns off on both sides and forgets the worker`s key', async () => {
    const browser = newBrowser();
    const device = new PushDevice(fakePorts(browser));
    await device.enable();
    browser.calls = [];
    await device.disable();
    expect(browser.calls).toEqual(['unsubscribe', `remove ${endpoint}`]);
    expect(browser.held).toBeNull();
    expect(browser.workerKey).toBe(false);
    expect(device.state).toEqual({ kind: 'off' });
  });

  it('stays off with the reason when Catalyst refuses the subscription', async () => {
    const browser = newBrowser({ isServerDown: true });
    const device = new PushDevice(fakePorts(browser));
    await device.enable();
    expect(device.state).toEqual({ kind: 'off', problem: 'down' });
  });
});
