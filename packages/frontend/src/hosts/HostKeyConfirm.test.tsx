import type { HostCheckView, HostHealthView, PresentedHostKey } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api } from '../base/api.ts';
import { HostsPage } from './HostsPage.tsx';

// A new host key on the Hosts page (issue 40, item 6), with the API replaced: still offered after a reload (the
// server's last check is read, no new check), and a jump host's key named as the jump host's.

beforeAll(() => {
  // jsdom has no scrollIntoView (a key to confirm is brought into view).
  Element.prototype.scrollIntoView = () => undefined;
});

const FINGERPRINT = 'SHA256:9yX0qjvS0bGsmsn0t6hUhAzMUuQR8WMnYp6mHn7tQoA';
const DEVBOX: HostHealthView = {
  name: 'devbox',
  label: 'devbox',
  isDefault: false,
  source: 'app',
  target: 'devbox',
  reachable: false,
  error: 'its host key is new: confirm it by its fingerprint',
};
const IDS = ['resolve', 'connect', 'host-key', 'auth', 'claude', 'login', 'tools', 'disk'] as const;

function keyCheck(key: PresentedHostKey): HostCheckView {
  const steps = IDS.map((id, index) => ({
    id,
    status: index < 2 ? ('ok' as const) : index === 2 ? ('failed' as const) : ('skipped' as const),
    detail: `${id} detail`,
  }));
  return { name: 'devbox', isReady: false, steps, unknownHostKey: key, ignored: [], checkedAt: '2026-01-01' };
}
const KEY = { fingerprint: FINGERPRINT, keyType: 'ssh-ed25519', knownHostsName: 'devbox', hop: '' };
const READY: HostCheckView = {
  name: 'devbox',
  isReady: true,
  steps: IDS.map((id) => ({ id, status: 'ok', detail: '' })),
  ignored: [],
  checkedAt: '2026-01-01',
};

let checkHost: MockInstance<typeof api.checkHost>;
let lastHostCheck: MockInstance<typeof api.lastHostCheck>;
let trustHostKey: MockInstance<typeof api.trustHostKey>;
beforeEach(() => {
  vi.spyOn(api, 'hosts').mockResolvedValue([DEVBOX]);
  checkHost = vi.spyOn(api, 'checkHost').mockResolvedValue(keyCheck(KEY));
  lastHostCheck = vi.spyOn(api, 'lastHostCheck').mockResolvedValue(null);
  trustHostKey = vi.spyOn(api, 'trustHostKey').mockResolvedValue(READY);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

async function devboxCard() {
  await screen.findByRole('heading', { name: 'devbox' });
  return within(screen.getByRole('listitem', { name: 'devbox' }));
}

describe('a new host key on the Hosts page', () => {
  it('is offered again after a reload, from the last check, without checking again', async () => {
    lastHostCheck.mockResolvedValue(keyCheck(KEY));
    render(<HostsPage />);
    const card = await devboxCard();
    const key = within(await card.findByRole('region', { name: 'A new host key to confirm' }));
    expect(key.getByText(FINGERPRINT)).toBeTruthy();
    expect(checkHost).not.toHaveBeenCalled();
    fireEvent.click(key.getByRole('button', { name: 'It matches: trust this key' }));
    await card.findByText('devbox is ready: new ideas can run there.');
    expect(trustHostKey).toHaveBeenCalledWith('devbox', FINGERPRINT);
  });

  it('is named as the jump host’s when a jump host presented it, to compare on its console', async () => {
    const bastion = 'bastion (ops@10.0.0.1:22)';
    checkHost.mockResolvedValue(keyCheck({ ...KEY, hop: bastion, isJump: true }));
    render(<HostsPage />);
    const card = await devboxCard();
    fireEvent.click(card.getByRole('button', { name: 'Check devbox' }));
    const region = await card.findByRole('region', { name: 'A new host key to confirm' });
    expect(region.textContent).toContain(`The jump host ${bastion}, on the way to devbox, presented a key`);
    expect(region.textContent).toContain('the jump host’s own console');
    expect(region.textContent).not.toContain('VM');
  });
});
