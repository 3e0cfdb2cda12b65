import type { HostCheckStep, HostCheckView, HostHealthView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { HostsPage } from './HostsPage.tsx';

// The Hosts page (issue 28) with the API replaced: the list (a file host read-only), adding a host by its alias
// with the name suggested, the check's steps in order, a new host key confirmed in one click or refused when the
// pasted fingerprint differs, the API's refusals by their field, and removing a host that holds ideas.

beforeAll(() => {
  // jsdom has no showModal.
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  // Nor scrollIntoView (a key to confirm is brought into view).
  Element.prototype.scrollIntoView = () => undefined;
});

const FINGERPRINT = 'SHA256:9yX0qjvS0bGsmsn0t6hUhAzMUuQR8WMnYp6mHn7tQoA';
const VM: HostHealthView = {
  name: 'vm',
  label: 'catalyst-bash@127.0.0.1:2222',
  isDefault: true,
  source: 'file',
  reachable: true,
  preflight: {
    claudePath: '/opt/claude',
    version: '2.1.0 (Claude Code)',
    path: '/usr/bin',
    canRunWrapper: true,
    problems: [],
  },
};
const DEVBOX: HostHealthView = {
  name: 'devbox',
  label: 'devbox',
  isDefault: false,
  source: 'app',
  target: 'devbox',
  reachable: false,
  error: 'Host devbox is unavailable: its host key is known nowhere.',
};

const IDS = ['resolve', 'connect', 'host-key', 'auth', 'claude', 'login', 'tools', 'disk'] as const;
function checkOf(statuses: Partial<Record<(typeof IDS)[number], HostCheckStep['status']>>): HostCheckView {
  const steps = IDS.map((id) => {
    const status = statuses[id] ?? 'ok';
    const fix = status === 'failed' ? 'Compare the fingerprint on the VM, then confirm it.' : undefined;
    return { id, status, detail: `${id} detail`, ...(fix === undefined ? {} : { fix }) };
  });
  const isReady = steps.every((step) => step.status === 'ok' || step.status === 'warning');
  return { name: 'devbox', isReady, steps, ignored: [], checkedAt: '2025-01-01T00:00:00.000Z' };
}
const KEY_UNKNOWN: HostCheckView = {
  ...checkOf({
    'host-key': 'failed',
    auth: 'skipped',
    claude: 'skipped',
    login: 'skipped',
    tools: 'skipped',
    disk: 'skipped',
  }),
  unknownHostKey: {
    fingerprint: FINGERPRINT,
    keyType: 'ssh-ed25519',
    knownHostsName: '[127.0.0.1]:2222',
    hop: '',
  },
  ignored: ['ForwardAgent yes (line 4): Catalyst never forwards an agent.'],
};
const READY = checkOf({});

let hosts: MockInstance<typeof api.hosts>;
let addHost: MockInstance<typeof api.addHost>;
let checkHost: MockInstance<typeof api.checkHost>;
let trustHostKey: MockInstance<typeof api.trustHostKey>;
let deleteHost: MockInstance<typeof api.deleteHost>;
beforeEach(() => {
  hosts = vi.spyOn(api, 'hosts').mockResolvedValue([VM]);
  vi.spyOn(api, 'sshAliases').mockResolvedValue({ aliases: ['devbox', 'Lab_Box'] });
  addHost = vi.spyOn(api, 'addHost').mockImplementation((body) => {
    hosts.mockResolvedValue([VM, { ...DEVBOX, name: body.name }]);
    return Promise.resolve({
      name: body.name,
      kind: 'ssh',
      source: 'app',
      isDefault: false,
      ideasRoot: '~/x',
    });
  });
  checkHost = vi.spyOn(api, 'checkHost').mockResolvedValue(KEY_UNKNOWN);
  // Never checked before: the cards start empty (a kept check is HostKeyConfirm.test.tsx's).
  vi.spyOn(api, 'lastHostCheck').mockResolvedValue(null);
  trustHostKey = vi.spyOn(api, 'trustHostKey').mockResolvedValue(READY);
  deleteHost = vi.spyOn(api, 'deleteHost').mockResolvedValue();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

async function openAddForm() {
  render(<HostsPage />);
  await screen.findByRole('heading', { name: 'vm' });
  fireEvent.click(screen.getByRole('button', { name: 'Add a host' }));
  const form = within(screen.getByRole('form', { name: 'Add a host' }));
  await form.findByRole('option', { name: 'devbox' });
  return form;
}

function hostCard(name: string) {
  return within(screen.getByRole('listitem', { name }));
}

describe('HostsPage', () => {
  it('shows a host of CATALYST_CONFIG_FILE read-only: its connection, claude, and only "Check"', async () => {
    render(<HostsPage />);
    await screen.findByRole('heading', { name: 'vm' });
    const card = hostCard('vm');
    expect(card.getByText('default')).toBeTruthy();
    expect(card.getByText('2.1.0 (Claude Code) at /opt/claude')).toBeTruthy();
    expect(card.getByText(/From CATALYST_CONFIG_FILE/)).toBeTruthy();
    expect(card.getByRole('button', { name: 'Check vm' })).toBeTruthy();
    expect(card.queryByRole('button', { name: 'Edit vm' })).toBeNull();
    expect(card.queryByRole('button', { name: 'Remove vm' })).toBeNull();
  });

  it('says the built-in host is this machine, made when no hosts file is set, not that a file holds it', async () => {
    hosts.mockResolvedValue([{ ...VM, name: 'local', label: 'this machine', source: 'builtin' }]);
    render(<HostsPage />);
    await screen.findByRole('heading', { name: 'local' });
    const card = hostCard('local');
    expect(card.getByText(/^Built in: this machine/)).toBeTruthy();
    expect(card.getByText('built in (no hosts file)')).toBeTruthy();
    expect(card.queryByText(/CATALYST_CONFIG_FILE:/)).toBeNull();
    expect(card.queryByRole('button', { name: 'Remove local' })).toBeNull();
  });

  it('suggests the name from the alias, adds the host, checks it and confirms its key in one click', async () => {
    const form = await openAddForm();
    fireEvent.change(form.getByLabelText('Alias'), { target: { value: 'Lab_Box' } });
    expect(form.getByLabelText<HTMLInputElement>('Name').value).toBe('lab-box');
    fireEvent.change(form.getByLabelText('Alias'), { target: { value: 'devbox' } });
    expect(form.getByLabelText<HTMLInputElement>('Name').value).toBe('devbox');
    fireEvent.change(form.getByLabelText('Claude path (optional)'), { target: { value: '/opt/claude' } });
    fireEvent.click(form.getByRole('button', { name: 'Add host' }));

    await vi.waitFor(() => {
      expect(checkHost).toHaveBeenCalledWith('devbox');
    });
    expect(addHost).toHaveBeenCalledWith({ name: 'devbox', target: 'devbox', claudePath: '/opt/claude' });
    const card = hostCard('devbox');
    await card.findByRole('list', { name: 'Steps' });
    const stepTexts = within(card.getByRole('list', { name: 'Steps' }))
      .getAllByRole('listitem')
      .map((step) => step.textContent);
    expect(stepTexts.slice(0, 4)).toEqual([
      'ResolveOKresolve detail',
      'ConnectOKconnect detail',
      // The key and how to compare it are shown once, above the steps.
      'Host keyFailedhost-key detailFix: compare the key above and confirm it.',
      'AuthenticationSkippedauth detail',
    ]);
    expect(card.getByText('ForwardAgent yes (line 4): Catalyst never forwards an agent.')).toBeTruthy();
    expect(card.getByText('devbox is not ready: the step “Host key” failed.').getAttribute('role')).toBe(
      'status',
    );

    const key = within(card.getByRole('region', { name: 'A new host key to confirm' }));
    expect(key.getByText(FINGERPRINT)).toBeTruthy();
    expect(key.getByText('ssh-ed25519')).toBeTruthy();
    expect(key.getByText('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub')).toBeTruthy();
    fireEvent.click(key.getByRole('button', { name: 'It matches: trust this key' }));

    await card.findByText('devbox is ready: new ideas can run there.');
    expect(trustHostKey).toHaveBeenCalledWith('devbox', FINGERPRINT);
    expect(card.queryByRole('region', { name: 'A new host key to confirm' })).toBeNull();
  });

  it('refuses a pasted fingerprint that differs, and then offers no way to trust the key', async () => {
    hosts.mockResolvedValue([VM, DEVBOX]);
    trustHostKey.mockRejectedValue(
      new ApiError(
        'FINGERPRINT_MISMATCH',
        `The fingerprint you gave (SHA256:wrong) is not the one devbox presented (${FINGERPRINT}). Do not confirm it until you know why they differ.`,
        409,
      ),
    );
    render(<HostsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Check devbox' }));
    const card = hostCard('devbox');
    const paste = await card.findByLabelText('Or paste the fingerprint read on the VM');
    fireEvent.change(paste, { target: { value: ' SHA256:wrong ' } });
    fireEvent.click(card.getByRole('button', { name: 'Trust the pasted fingerprint' }));

    const alert = await card.findByRole('alert');
    expect(trustHostKey).toHaveBeenCalledWith('devbox', 'SHA256:wrong');
    expect(alert.textContent).toContain('Not trusted: the fingerprints differ');
    expect(alert.textContent).toContain('Do not confirm it until you know why they differ.');
    expect(card.queryByRole('button', { name: 'It matches: trust this key' })).toBeNull();
    expect(card.queryByRole('button', { name: 'Trust the pasted fingerprint' })).toBeNull();
  });

  it('shows the API’s refusals next to the field they concern', async () => {
    const form = await openAddForm();
    fireEvent.click(form.getByRole('button', { name: 'Add host' }));
    expect(form.getByText('Choose an alias.')).toBeTruthy();
    expect(addHost).not.toHaveBeenCalled();

    addHost.mockRejectedValue(new ApiError('HOST_EXISTS', 'There is a host named devbox already.', 409));
    fireEvent.change(form.getByLabelText('Alias'), { target: { value: 'devbox' } });
    fireEvent.click(form.getByRole('button', { name: 'Add host' }));
    const nameError = await form.findByText('There is a host named devbox already.');
    const name = form.getByLabelText('Name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.getAttribute('aria-describedby')).toContain(nameError.id);

    const unknown =
      'devbx is not a Host of ~/.ssh/config (it has devbox): type user@host[:port] for a host that is not there.';
    addHost.mockRejectedValue(new ApiError('INVALID_ARGUMENT', unknown, 400));
    fireEvent.click(form.getByLabelText('By user@host[:port]'));
    fireEvent.change(form.getByLabelText('Address'), { target: { value: 'devbx' } });
    expect(form.getByLabelText<HTMLInputElement>('Name').value).toBe('devbx');
    fireEvent.change(form.getByLabelText('Name'), { target: { value: 'typo' } });
    fireEvent.click(form.getByRole('button', { name: 'Add host' }));
    const targetError = await form.findByText(unknown);
    expect(form.getByLabelText('Address').getAttribute('aria-describedby')).toContain(targetError.id);
    expect(form.queryByText('There is a host named devbox already.')).toBeNull();
  });

  it('shows why ~/.ssh/config could not be read, and offers user@host[:port] instead', async () => {
    vi.spyOn(api, 'sshAliases').mockResolvedValue({
      aliases: [],
      problem: '/home/me/.ssh/config line 7: Port must be a number',
    });
    render(<HostsPage />);
    await screen.findByRole('heading', { name: 'vm' });
    fireEvent.click(screen.getByRole('button', { name: 'Add a host' }));
    const form = within(screen.getByRole('form', { name: 'Add a host' }));
    await form.findByText(
      '~/.ssh/config could not be read: /home/me/.ssh/config line 7: Port must be a number',
    );
    expect(form.getByLabelText<HTMLInputElement>('By user@host[:port]').checked).toBe(true);
    fireEvent.change(form.getByLabelText('Address'), { target: { value: 'me@vm.example.com:2222' } });
    // `vm` is taken by the host of CATALYST_CONFIG_FILE.
    expect(form.getByLabelText<HTMLInputElement>('Name').value).toBe('vm-2');
  });

  it('changes a host added in the app: how it is reached and its ideas root, each checked on its field, then saved', async () => {
    hosts.mockResolvedValue([VM, DEVBOX]);
    const updateHost = vi.spyOn(api, 'updateHost').mockResolvedValue({
      name: 'devbox',
      kind: 'ssh',
      source: 'app',
      isDefault: true,
      ideasRoot: '~/ideas',
    });
    render(<HostsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit devbox' }));
    const form = within(screen.getByRole('form', { name: 'Change devbox' }));
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    expect(form.getByRole('alert').textContent).toBe(
      'Nothing is changed: fill in a field or tick a box first.',
    );

    fireEvent.change(form.getByLabelText('Ideas root'), { target: { value: 'ideas' } });
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    const error = form.getByText('Must be absolute or start with ~/ (the host user’s home).');
    expect(form.getByLabelText('Ideas root').getAttribute('aria-describedby')).toContain(error.id);
    expect(updateHost).not.toHaveBeenCalled();

    // Reached another way: a target that is not one is marked on its field.
    expect(form.getByLabelText<HTMLInputElement>('Reached as').value).toBe('devbox');
    fireEvent.change(form.getByLabelText('Reached as'), { target: { value: 'my box' } });
    fireEvent.change(form.getByLabelText('Ideas root'), { target: { value: '~/ideas' } });
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    expect(form.getByLabelText('Reached as').getAttribute('aria-invalid')).toBe('true');
    expect(updateHost).not.toHaveBeenCalled();

    fireEvent.change(form.getByLabelText('Reached as'), { target: { value: 'ops@devbox.lab:2222' } });
    fireEvent.click(form.getByLabelText('Let Catalyst find claude on the host'));
    fireEvent.click(form.getByLabelText('Make it the default host (new ideas go there)'));
    fireEvent.click(form.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => {
      expect(screen.queryByRole('form', { name: 'Change devbox' })).toBeNull();
    });
    expect(updateHost).toHaveBeenCalledWith('devbox', {
      target: 'ops@devbox.lab:2222',
      ideasRoot: '~/ideas',
      claudePath: null,
      isDefault: true,
    });
  });

  it('asks before removing a host that holds ideas, with the server’s sentence, then removes it', async () => {
    hosts.mockResolvedValue([VM, DEVBOX]);
    deleteHost.mockImplementation((_name, isConfirmed) =>
      isConfirmed === true
        ? Promise.resolve()
        : Promise.reject(
            new ApiError(
              'HOST_HAS_IDEAS',
              'devbox holds 2 ideas. They stay on the VM and come back if you add the host again; confirm to remove it anyway.',
              409,
            ),
          ),
    );
    render(<HostsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove devbox' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Remove devbox?' }));
    expect(
      dialog.getByText('devbox holds 2 ideas. They stay on the VM and come back if you add the host again.'),
    ).toBeTruthy();
    hosts.mockResolvedValue([VM]);
    fireEvent.click(dialog.getByRole('button', { name: 'Remove anyway' }));
    await vi.waitFor(() => {
      expect(screen.queryByRole('heading', { name: 'devbox' })).toBeNull();
    });
    expect(deleteHost.mock.calls).toEqual([
      ['devbox', false],
      ['devbox', true],
    ]);
  });
});
