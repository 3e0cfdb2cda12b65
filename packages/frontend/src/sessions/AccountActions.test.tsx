import type { BrowserSessionView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api, ApiError, UNAUTHORIZED_EVENT } from '../base/api.ts';
import { AccountActions } from './AccountActions.tsx';

// The header's "Signed-in browsers" and "Log out" (issue 25): the list names each browser, marks this one, signs
// another out and shows the list again; logging out (or signing this browser out) ends the session and sends the
// app to its login screen; a failure is a sentence.

beforeAll(() => {
  // jsdom has no showModal.
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const THIS: BrowserSessionView = {
  id: 'session-0000000000000001',
  name: 'Chrome on Linux',
  createdAt: minutesAgo(3 * 24 * 60),
  lastSeenAt: minutesAgo(0),
  expiresAt: minutesAgo(-27 * 24 * 60),
  current: true,
  paired: false,
};
const PHONE: BrowserSessionView = {
  id: 'session-0000000000000002',
  name: 'Firefox on Android',
  createdAt: minutesAgo(2 * 24 * 60),
  lastSeenAt: minutesAgo(120),
  expiresAt: minutesAgo(-28 * 24 * 60),
  current: false,
  paired: true,
};

let listSessions: MockInstance<typeof api.listSessions>;
let endSession: MockInstance<typeof api.endSession>;
let logOut: MockInstance<typeof api.logOut>;
let loggedOut: ReturnType<typeof vi.fn<() => void>>;
beforeEach(() => {
  listSessions = vi.spyOn(api, 'listSessions').mockResolvedValue([PHONE, THIS]);
  endSession = vi.spyOn(api, 'endSession').mockResolvedValue();
  logOut = vi.spyOn(api, 'logOut').mockResolvedValue();
  loggedOut = vi.fn<() => void>();
  addEventListener(UNAUTHORIZED_EVENT, loggedOut);
});
afterEach(() => {
  removeEventListener(UNAUTHORIZED_EVENT, loggedOut);
  cleanup();
  vi.restoreAllMocks();
});

async function openList() {
  render(<AccountActions />);
  expect(listSessions).not.toHaveBeenCalled();
  fireEvent.click(screen.getByRole('button', { name: 'Signed-in browsers' }));
  const dialog = await screen.findByRole('dialog', { name: 'Signed-in browsers' });
  return within(dialog);
}

describe('AccountActions', () => {
  it('lists the signed-in browsers, this one marked, with when each logged in and was last seen', async () => {
    const list = await openList();
    const rows = await list.findAllByRole('listitem');
    expect(rows.map((row) => row.querySelector('strong')?.textContent)).toEqual([
      'Firefox on Android',
      'Chrome on Linux',
    ]);
    expect(rows[0]?.textContent).toContain('logged in 2 days ago');
    expect(rows[0]?.textContent).toContain('last seen 2 hours ago');
    expect(rows[0]?.textContent).toContain('Paired');
    expect(rows[1]?.textContent).toContain('This browser');
    expect(rows[1]?.textContent).not.toContain('Paired');
    expect(within(rows[1] as HTMLElement).getByRole('button').textContent).toBe('Log out');
  });

  it('signs another browser out and shows the list again', async () => {
    const list = await openList();
    listSessions.mockResolvedValue([THIS]);
    fireEvent.click(await list.findByRole('button', { name: 'Sign out Firefox on Android' }));
    await vi.waitFor(() => {
      expect(list.getAllByRole('listitem')).toHaveLength(1);
    });
    expect(endSession).toHaveBeenCalledWith(PHONE.id);
    expect(logOut).not.toHaveBeenCalled();
    expect(loggedOut).not.toHaveBeenCalled();
  });

  it('logs out from the header: the session ends, then the login screen', async () => {
    render(<AccountActions />);
    fireEvent.click(screen.getByRole('button', { name: 'Log out' }));
    await vi.waitFor(() => {
      expect(loggedOut).toHaveBeenCalledOnce();
    });
    expect(logOut).toHaveBeenCalledOnce();
  });

  it('logs out when this browser is signed out from the list', async () => {
    const list = await openList();
    const rows = await list.findAllByRole('listitem');
    fireEvent.click(within(rows[1] as HTMLElement).getByRole('button', { name: 'Log out' }));
    await vi.waitFor(() => {
      expect(loggedOut).toHaveBeenCalledOnce();
    });
    expect(logOut).toHaveBeenCalledOnce();
    expect(endSession).not.toHaveBeenCalled();
  });

  it('says what went wrong, and stays logged in when the logout failed', async () => {
    logOut.mockRejectedValue(new ApiError('NETWORK', 'Catalyst cannot be reached. Is it still running?', 0));
    render(<AccountActions />);
    fireEvent.click(screen.getByRole('button', { name: 'Log out' }));
    expect((await screen.findByRole('alert')).textContent).toContain('cannot be reached');
    expect(loggedOut).not.toHaveBeenCalled();

    listSessions.mockRejectedValue(
      new ApiError('NETWORK', 'Catalyst cannot be reached. Is it still running?', 0),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Signed-in browsers' }));
    const dialog = await screen.findByRole('dialog', { name: 'Signed-in browsers' });
    expect((await within(dialog).findByRole('alert')).textContent).toContain('cannot be reached');
  });
});
