import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, opensshFingerprint, type TempDir } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import { saveScreenshot } from './page-problems.ts';

// Confirming a new host key (issue 40, item 6) at 1440×900, as a person adding the VM lives it: the fingerprint
// once, "It matches: trust this key" in view without scrolling, still offered after a reload, and through a jump
// host the key named as the jump host's, to be compared on its console. Catalyst reads an ssh config of the test's
// own: `devbox` is the test sshd; `behind` is the same sshd reached through `bastion` (ProxyJump), each hop known
// under a HostKeyAlias of its own, so the bastion's key and then the target's are each known nowhere.

const suite = useBrowserSuite();
const DESKTOP = { width: 1440, height: 900, isMobile: false, hasTouch: false };
const TRUST = 'It matches: trust this key';

let dir: TempDir;
let sshConfig: string;
let ideasRoot: string;

beforeAll(async () => {
  dir = await createTempDir('host-key-browser');
  const { sshd } = suite.fixture;
  const user = sshd.users.bash;
  const hop = (alias: string, extra: string[]) =>
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${String(sshd.port)}`,
      `  User ${user.name}`,
      `  IdentityFile ${sshd.clientKeyPath}`,
      ...extra,
    ].join('\n');
  const knownHosts = join(dir.path, 'known_hosts');
  await writeFile(knownHosts, '');
  sshConfig = join(dir.path, 'ssh_config');
  const common = `Host *\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile none\n  IdentityAgent none\n  ServerAliveInterval 15\n`;
  const blocks = [
    hop('devbox', []),
    hop('bastion', ['  HostKeyAlias bastion-key']),
    hop('behind', ['  ProxyJump bastion', '  HostKeyAlias behind-key']),
  ];
  await writeFile(sshConfig, [...blocks, common].join('\n'));
  ideasRoot = join(user.home, `catalyst-e2e-hostkey-${randomBytes(4).toString('hex')}`);
});
afterAll(async () => {
  await rm(ideasRoot, { recursive: true, force: true });
  await dir.remove();
});

function hostCard(page: Page, name: string): Locator {
  return page.getByRole('listitem', { name, exact: true });
}

async function addHost(page: Page, alias: string): Promise<void> {
  await page.getByRole('button', { name: 'Add a host' }).click();
  const form = page.getByRole('form', { name: 'Add a host' });
  await form.getByRole('option', { name: alias, exact: true }).waitFor({ state: 'attached' });
  await form.getByLabel('Alias', { exact: true }).selectOption(alias);
  await form.getByLabel('Ideas root (optional)').fill(join(ideasRoot, alias));
  await form.getByLabel('Claude path (optional)').fill(suite.fixture.claudePath);
  await form.getByRole('button', { name: 'Add host' }).click();
}

/** The button whole inside the 1440×900 window, as the page stands (no scrolling by the test). */
async function expectInView(button: Locator): Promise<void> {
  const box = await button.boundingBox();
  expect(box, 'the button is laid out').not.toBeNull();
  expect(box?.y ?? -1, 'the button’s top is in the window').toBeGreaterThanOrEqual(0);
  expect((box?.y ?? 0) + (box?.height ?? 0), 'the button’s bottom is in the window').toBeLessThanOrEqual(
    DESKTOP.height,
  );
}

async function occurrences(page: Page, text: string): Promise<number> {
  return ((await page.locator('main').textContent()) ?? '').split(text).length - 1;
}

async function openHosts(): Promise<Page> {
  const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
  const page = await suite.openLoggedInPage({ catalyst, device: DESKTOP });
  await page.getByRole('link', { name: 'Hosts', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
  return page;
}

describe('confirming a new host key', () => {
  it('shows the fingerprint once, with the button in view at 1440×900, and still after a reload', async () => {
    const page = await openHosts();
    const fingerprint = await opensshFingerprint(suite.fixture.sshd.hostKeyLine);
    await addHost(page, 'devbox');

    const card = hostCard(page, 'devbox');
    const key = card.getByRole('region', { name: 'A new host key to confirm' });
    const trust = key.getByRole('button', { name: TRUST });
    await trust.waitFor();
    await expectInView(trust);
    expect(await occurrences(page, fingerprint), 'the fingerprint on the page').toBe(1);
    expect(await occurrences(page, 'ssh-keygen -lf'), 'how to compare it').toBe(1);
    expect(await key.textContent()).toContain('the VM’s own console');
    await saveScreenshot(page, 'host-key', 'key confirmation 1440x900');

    // A reload while the key is unconfirmed: it is offered again, in view, without pressing "Check".
    await page.reload();
    await trust.waitFor();
    await expectInView(trust);
    await trust.click();
    await card.getByText('devbox is ready: new ideas can run there.').waitFor();
  });

  it('through a jump host, names the key as the jump host’s, to compare on its console; then the VM’s', async () => {
    const page = await openHosts();
    await addHost(page, 'behind');
    const card = hostCard(page, 'behind');
    const key = card.getByRole('region', { name: 'A new host key to confirm' });
    await key.getByText('The jump host bastion', { exact: false }).waitFor();
    const said = (await key.textContent()) ?? '';
    expect(said).toContain('on the way to behind');
    expect(said).toContain('the jump host’s own console');
    expect(said).not.toContain('VM’s own console');
    const fix = (await card.locator('.check-step-fix').allTextContents()).join('\n');
    expect(fix).not.toContain('VM');
    await expectInView(key.getByRole('button', { name: TRUST }));
    await saveScreenshot(page, 'host-key', 'jump host key 1440x900');

    // The bastion's key trusted, the check goes on to the VM behind it, whose key is its own.
    await key.getByRole('button', { name: TRUST }).click();
    await key.getByText('the VM’s own console', { exact: false }).waitFor();
    expect(await key.textContent()).not.toContain('jump host');
    await key.getByRole('button', { name: TRUST }).click();
    await card.getByText('behind is ready: new ideas can run there.').waitFor();
  });

  it('says a host added with a wrong port is not ready, offers to fix it, and shows its ideas root', async () => {
    const page = await openHosts();
    await page.getByRole('button', { name: 'Add a host' }).click();
    const form = page.getByRole('form', { name: 'Add a host' });
    await form.getByLabel('By user@host[:port]').check();
    // Port 1: nothing listens there, so Connect fails.
    await form.getByLabel('Address', { exact: true }).fill(`${suite.fixture.sshd.users.bash.name}@devbox:1`);
    await form.getByLabel('Name', { exact: true }).fill('wrongport');
    await form.getByLabel('Ideas root (optional)').fill(join(ideasRoot, 'wrongport'));
    await form.getByLabel('Claude path (optional)').fill(suite.fixture.claudePath);
    await form.getByRole('button', { name: 'Add host' }).click();

    const card = hostCard(page, 'wrongport');
    const choice = card.getByRole('group', { name: 'wrongport not reached' });
    await choice.getByText('wrongport is added but not ready', { exact: false }).waitFor();
    await card.getByText('not ready', { exact: true }).waitFor();
    await saveScreenshot(page, 'host-key', 'a host added with a wrong port');
    await choice.getByRole('button', { name: 'Fix how it is reached' }).click();
    const edit = card.getByRole('form', { name: 'Change wrongport' });
    await edit.getByLabel('Reached as').fill('devbox');
    await edit.getByLabel('Ideas root').fill(join(ideasRoot, 'edited'));
    await edit.getByRole('button', { name: 'Save' }).click();
    await card.getByText(join(ideasRoot, 'edited'), { exact: true }).waitFor();
    // Checked again as saved: reached now, its key next; the choice about reaching it is gone.
    await card.getByRole('button', { name: TRUST }).waitFor();
    expect(await choice.count()).toBe(0);
  });
});
