import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotifyButton } from './NotifyButton.tsx';

// The browser's permission is asked for once the person clicks "Notify me", never when the page renders.

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function stubNotification(permission: NotificationPermission, answer: NotificationPermission) {
  const requestPermission = vi.fn(() => Promise.resolve(answer));
  vi.stubGlobal('Notification', { permission, requestPermission });
  return requestPermission;
}

describe('NotifyButton', () => {
  it('asks only on a click, then says what the browser decided', async () => {
    const requestPermission = stubNotification('default', 'granted');
    render(<NotifyButton />);
    expect(requestPermission).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Notify me' }));
    expect(requestPermission).toHaveBeenCalledOnce();
    await screen.findByText('Notifications on');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says when the browser blocks them, and shows nothing where there are none', () => {
    stubNotification('denied', 'denied');
    const { unmount } = render(<NotifyButton />);
    expect(screen.getByText('Notifications blocked')).toBeTruthy();
    unmount();
    vi.unstubAllGlobals();
    expect('Notification' in window).toBe(false);
    const { container } = render(<NotifyButton />);
    expect(container.textContent).toBe('');
  });
});
