import { cleanup, fireEvent, render, screen, within, act } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { AccountActions } from './AccountActions.tsx';

// "Open on another device" (issue 29): each opening asks for a new one-time link and shows it as a QR code and as
// text to copy, with the time it has left; a link that ran out gives way to a new one on request; a link Catalyst
// could only point at this machine says why a phone cannot open it.

beforeAll(() => {
  // jsdom has no showModal.
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
});

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const linkOf = (code: string, origin = 'http://192.168.1.20:7433') => ({
  url: `${origin}/pair#code=${code}`,
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

let createPairing: MockInstance<typeof api.createPairing>;
beforeEach(() => {
  // Only the clock and the countdown's interval: the queries' own waiting stays real.
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'], now: NOW });
  createPairing = vi.spyOn(api, 'createPairing').mockImplementation(() => Promise.resolve(linkOf('first')));
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

async function openDialog() {
  fireEvent.click(screen.getByRole('button', { name: 'Open on another device' }));
  return within(await screen.findByRole('dialog', { name: 'Open on another device' }));
}

async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe('Open on another device', () => {
  it('shows a new link each time, as a QR code and as text, with a note that it signs in whoever opens it', async () => {
    render(<AccountActions />);
    expect(createPairing).not.toHaveBeenCalled();
    let dialog = await openDialog();
    const input = await dialog.findByLabelText('Link');
    expect((input as HTMLInputElement).value).toBe('http://192.168.1.20:7433/pair#code=first');
    const qr = dialog.getByRole('img', { name: 'QR code of the link below' });
    expect(qr.querySelector('path')?.getAttribute('d')).toMatch(/^M4 4h7v1h-7z/);
    expect(dialog.getByText(/Whoever opens it is signed in/)).toBeDefined();
    expect(dialog.queryByText(/listens on this computer only/)).toBeNull();

    fireEvent.click(dialog.getByRole('button', { name: 'Close' }));
    createPairing.mockImplementation(() => Promise.resolve(linkOf('second')));
    dialog = await openDialog();
    await vi.waitFor(() => {
      expect(dialog.getByLabelText<HTMLInputElement>('Link').value).toContain('code=second');
    });
    expect(createPairing).toHaveBeenCalledTimes(2);
  });

  it('counts the time down, and offers a new link once it has run out', async () => {
    render(<AccountActions />);
    const dialog = await openDialog();
    expect((await dialog.findByText('10:00')).className).toBe('pairing-countdown');
    await tick(1000);
    expect(dialog.getByText('9:59')).toBeDefined();
    await tick(599_000);
    expect(dialog.getByRole('status').textContent).toContain('This link has expired.');
    expect(dialog.queryByRole('img')).toBeNull();
    expect(dialog.queryByLabelText('Link')).toBeNull();

    createPairing.mockImplementation(() => Promise.resolve(linkOf('renewed')));
    fireEvent.click(dialog.getByRole('button', { name: 'Make a new link' }));
    await vi.waitFor(() => {
      expect(dialog.getByLabelText<HTMLInputElement>('Link').value).toContain('code=renewed');
    });
    expect(dialog.getByText('10:00')).toBeDefined();
  });

  it('copies the link', async () => {
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue();
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(<AccountActions />);
    const dialog = await openDialog();
    fireEvent.click(await dialog.findByRole('button', { name: 'Copy link' }));
    expect(await dialog.findByText('Copied.')).toBeDefined();
    expect(writeText).toHaveBeenCalledWith('http://192.168.1.20:7433/pair#code=first');
  });

  it('says why a phone cannot open a link to this machine only, and what went wrong when none came', async () => {
    createPairing.mockImplementation(() => Promise.resolve(linkOf('here', 'http://127.0.0.1:7433')));
    render(<AccountActions />);
    let dialog = await openDialog();
    expect(await dialog.findByText(/Catalyst listens on this computer only/)).toBeDefined();

    fireEvent.click(dialog.getByRole('button', { name: 'Close' }));
    createPairing.mockRejectedValue(
      new ApiError('NETWORK', 'Catalyst cannot be reached. Is it still running?', 0),
    );
    dialog = await openDialog();
    expect((await dialog.findByRole('alert')).textContent).toContain('cannot be reached');
  });
});
