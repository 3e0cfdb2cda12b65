import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PushSubscriptionView } from '@catalyst/protocol';
import { NotifyButton } from './NotifyButton.tsx';
import { PushContext } from './push-context.ts';
import { PushDevice, type PushPorts } from './push-device.ts';

// The browser's permission is asked for once the person clicks "Notify me" (this tab) or "Notify me on this
// device" (push), never when the page renders.

const ideaId = 'idea-0123456789abcdef';
const endpoint = 'https://push.example/send/abc';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function stubNotification(permission: NotificationPermission, answer: NotificationPermission) {
  const requestPermission = vi.fn(() => Promise.resolve(answer));
  vi.stubGlobal('Notification', { permission, requestPermission });
  return requestPermission;
}

describe('NotifyButton where there is no push', () => {
  it('asks only on a click, then says what the browser decided', async () => {
    const requestPermission = stubNotification('default', 'granted');
    render(<NotifyButton ideaId={ideaId} />);
    expect(requestPermission).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Notify me' }));
    expect(requestPermission).toHaveBeenCalledOnce();
    await screen.findByText('Notifications on');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says when the browser blocks them, and shows nothing where there are none', () => {
    stubNotification('denied', 'denied');
    const { unmount } = render(<NotifyButton ideaId={ideaId} />);
    expect(screen.getByText('Notifications blocked')).toBeTruthy();
    // How to allow them, in words on the page (issue 40), not only in a tooltip a phone never shows.
    expect(screen.getByRole('note').textContent).toMatch(/site settings, set Notifications to Allow/);
    unmount();
    vi.unstubAllGlobals();
    expect('Notification' in window).toBe(false);
    const { container } = render(<NotifyButton ideaId={ideaId} />);
    expect(container.textContent).toBe('');
  });
});

/** A device whose browser has push; its answers recorded. */
function pushDevice(options: { answer?: NotificationPermission; isSupported?: boolean } = {}) {
  let permission: NotificationPermission = 'default';
  const calls: string[] = [];
  let muted: string[] = [];
  const view = (): PushSubscriptionView => ({
    endpoint,
    createdAt: '2026-01-01T00:00:00.000Z',
    mutedIdeas: muted,
  });
  const subscription = {
    endpoint,
    options: { applicationServerKey: null },
    toJSON: () => ({ endpoint, keys: { p256dh: 'p', auth: 'a' } }),
    unsubscribe: () => Promise.resolve(true),
  };
  let held: typeof subscription | null = null;
  const ports: PushPorts = {
    pushManager: () =>
      Promise.resolve(
        options.isSupported === false
          ? undefined
          : {
              getSubscription: () => Promise.resolve(held),
              subscribe: () => {
                held = subscription;
                return Promise.resolve(subscription);
              },
            },
      ),
    permission: () => permission,
    requestPermission: () => {
      calls.push('requestPermission');
      permission = options.answer ?? 'granted';
      return Promise.resolve(permission);
    },
    keepWorkerKey: () => Promise.resolve(),
    api: {
      pushKey: () => Promise.resolve('BBBB'),
      addPushSubscription: () => Promise.resolve(view()),
      removePushSubscription: () => {
        calls.push('remove');
        return Promise.resolve();
      },
      mutePushIdea: (id, _at, isMuted) => {
        calls.push(`mute ${id} ${String(isMuted)}`);
        muted = isMuted ? [id] : [];
        return Promise.resolve(view());
      },
    },
    describeError: () => 'failed',
  };
  return { device: new PushDevice(ports), calls };
}

function renderWithPush(device: PushDevice) {
  return render(
    <PushContext.Provider value={device}>
      <NotifyButton ideaId={ideaId} />
    </PushContext.Provider>,
  );
}

describe('NotifyButton where the device can have pushes', () => {
  it('subscribes on a click only, then offers the mute and the way off', async () => {
    const { device, calls } = pushDevice();
    await device.start();
    renderWithPush(device);
    expect(calls).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Notify me on this device' }));
    await screen.findByText('Notifications on this device');
    expect(calls).toEqual(['requestPermission']);

    const mute = screen.getByRole('button', { name: 'Mute this idea on this device' });
    expect(mute.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(mute);
    await waitFor(() => {
      expect(mute.getAttribute('aria-pressed')).toBe('true');
    });
    expect(calls).toContain(`mute ${ideaId} true`);

    fireEvent.click(screen.getByRole('button', { name: 'Turn notifications off' }));
    await screen.findByRole('button', { name: 'Notify me on this device' });
    expect(calls.at(-1)).toBe('remove');
  });

  it('says when the browser blocks them, and how to allow them in this browser', async () => {
    const { device } = pushDevice({ answer: 'denied' });
    await device.start();
    renderWithPush(device);
    fireEvent.click(screen.getByRole('button', { name: 'Notify me on this device' }));
    await screen.findByText('Notifications blocked');
    expect(screen.getByRole('note').textContent).toMatch(/site settings, set Notifications to Allow/);
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('falls back to this tab`s notifications where push is not offered', async () => {
    stubNotification('default', 'granted');
    const { device } = pushDevice({ isSupported: false });
    await device.start();
    renderWithPush(device);
    expect(screen.getByRole('button', { name: 'Notify me' })).toBeTruthy();
  });
});
