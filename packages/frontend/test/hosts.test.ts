import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostCheckResponseSchema, IdeaResponseSchema } from '@catalyst/protocol';
import {
  createTempDir,
  opensshFingerprint,
  text,
  writeSshClientConfig,
  type TempDir,
} from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { saveScreenshot } from './page-problems.ts';
import { claudeTexts, ideaHeading, sendMessage, sidewaysOverflow, waitForRunSummary } from './idea-page.ts';

// Hosts added in the app (issue 28), as a person whose `ssh devbox` already works lives it: Hosts → Add a host →
// the alias from ~/.ssh/config → the check stops at the host key and shows its fingerprint → a wrong pasted
// fingerprint is refused → "It matches" → every step OK → a new idea on that host from the ideas list, and a chat
// there. Catalyst reads an ssh config of the test's own (CATALYST_SSH_CONFIG_FILE) whose `devbox` is the test sshd.

const suite = useBrowserSuite();
/** The trust refused (409) and the check that follows are answers Chromium logs as console errors. */
const refusedTrust = [/status of 409 \(Conflict\)/];
const PHONE_WIDTH = 360;
const ALL_OK = ['OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK'];

let dir: TempDir;
let sshConfig: string;
let ideasRoot: string;

beforeAll(async () => {
  dir = await createTempDir('hosts-browser');
  const { sshd } = suite.fixture;
  // `nologin`: a user whose claude is not logged in (no settings of the test kit's).
  const hosts = { devbox: sshd.users.bash, nologin: sshd.users.dash };
  ({ configPath: sshConfig } = await writeSshClientConfig(sshd, { dir: dir.path, hosts }));
  ideasRoot = join(sshd.users.bash.home, `catalyst-e2e-hosts-${randomBytes(4).toString('hex')}`);
});
afterAll(async () => {
  await rm(ideasRoot, { recursive: true, force: true });
  await dir.remove();
});

function hostCard(page: Page, name: string): Locator {
  return page.getByRole('listitem', { name, exact: true });
}

/** axe on the Hosts page as it is, light and dark, a screenshot of each; back to light after. */
async function expectAccessible(page: Page, state: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await saveScreenshot(page, 'hosts', `${state} ${colorScheme}`);
    expect.soft(await findAxeViolations(page), `axe on the Hosts page, ${state}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function stepStatuses(card: Locator): Promise<string[]> {
  return card
    .getByRole('list', { name: 'Steps' })
    .getByRole('listitem')
    .locator('.check-status')
    .allTextContents();
}

describe('hosts in the browser', () => {
  it('adds the VM by its ssh alias, confirms its key by fingerprint, and runs a new idea there', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const page = await suite.openLoggedInPage({ catalyst, expectedConsole: refusedTrust });
    const fingerprint = await opensshFingerprint(suite.fixture.sshd.hostKeyLine);

    await page.getByRole('link', { name: 'Hosts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/hosts');
    await hostCard(page, 'vm').getByText('From CATALYST_CONFIG_FILE', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Add a host' }).click();
    const form = page.getByRole('form', { name: 'Add a host' });
    await form.getByRole('option', { name: 'devbox' }).waitFor({ state: 'attached' });
    await form.getByLabel('Alias', { exact: true }).selectOption('devbox');
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('devbox');
    await form.getByLabel('Ideas root (optional)').fill(ideasRoot);
    await form.getByLabel('Claude path (optional)').fill(suite.fixture.claudePath);
    await form.getByRole('button', { name: 'Add host' }).click();

    // Checked at once: the host key is known nowhere, so the check stops there and shows the fingerprint.
    const card = hostCard(page, 'devbox');
    await card.getByText('devbox is not ready: the step “Host key” failed.').waitFor();
    expect((await stepStatuses(card)).slice(0, 4)).toEqual(['OK', 'OK', 'Failed', 'Skipped']);
    const key = card.getByRole('region', { name: 'A new host key to confirm' });
    expect(await key.locator('.host-key-fingerprint code').textContent()).toBe(fingerprint);
    expect(await key.textContent()).toContain('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    await expectAccessible(page, 'a key to confirm');

    // A fingerprint read wrong is refused, and nothing on the page offers to trust the key anyway.
    await key
      .getByLabel('Or paste the fingerprint read on the VM')
      .fill('SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU');
    await key.getByRole('button', { name: 'Trust the pasted fingerprint' }).click();
    const refusal = card.getByRole('alert');
    await refusal.getByText('Not trusted: the fingerprints differ').waitFor();
    expect(await refusal.textContent()).toContain('Do not confirm it until you know why they differ.');
    expect(await card.getByRole('button', { name: 'It matches: trust this key' }).count()).toBe(0);

    // Checked again, the key is offered again; it matches what the VM's console shows.
    await card.getByRole('button', { name: 'Check devbox' }).click();
    await key.getByRole('button', { name: 'It matches: trust this key' }).click();
    await card.getByText('devbox is ready: new ideas can run there.').waitFor();
    expect(await stepStatuses(card)).toEqual(ALL_OK);
    expect(await key.count()).toBe(0);
    // The list asks again: the host now answers, with its claude.
    await card.getByText('reachable', { exact: true }).waitFor();

    await expectAccessible(page, 'ready');
    await page.setViewportSize({ width: PHONE_WIDTH, height: 740 });
    await saveScreenshot(page, 'hosts', 'ready on a phone');
    expect(await sidewaysOverflow(page, PHONE_WIDTH), 'the Hosts page on a phone').toEqual({
      overflowPx: 0,
      elements: [],
    });
    await page.setViewportSize({ width: 1200, height: 900 });

    // A new idea on that host, from the ideas list; its page runs a chat there.
    await page.getByRole('link', { name: '← Ideas' }).click();
    await page.getByRole('button', { name: 'New idea' }).click();
    await page.getByLabel('Title', { exact: true }).fill('On the added host');
    await page.getByLabel('Host', { exact: true }).selectOption('devbox');
    await page.getByRole('button', { name: 'Create idea' }).click();
    await ideaHeading(page, 'On the added host').waitFor();
    const id = /\/ideas\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? '';
    const answer = await catalyst.api(`/api/ideas/${id}`);
    expect(IdeaResponseSchema.parse(await answer.json()).idea.host).toBe('devbox');
    await page.getByText(/^devbox: claude/).waitFor();

    suite.fixture.model.enqueue(text('Hello from devbox.'));
    await sendMessage(page, 'Where are you?');
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Hello from devbox.' }).waitFor();
  });

  it('says on an idea’s page that its host is not ready, and what to do, before a run fails there', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const post = (path: string, body: unknown) =>
      catalyst.api(path, { method: 'POST', body: JSON.stringify(body) });
    const root = join(
      suite.fixture.sshd.users.dash.home,
      `catalyst-e2e-nologin-${randomBytes(4).toString('hex')}`,
    );
    try {
      const added = await post('/api/hosts', {
        name: 'nologin',
        target: 'nologin',
        claudePath: suite.fixture.claudePath,
        ideasRoot: root,
      });
      expect(added.status).toBe(201);
      const checked = HostCheckResponseSchema.parse(
        await (await post('/api/hosts/nologin/check', {})).json(),
      );
      expect(checked.check.unknownHostKey?.fingerprint).toBe(
        await opensshFingerprint(suite.fixture.sshd.hostKeyLine),
      );
      const trusted = await post('/api/hosts/nologin/trust', {
        fingerprint: checked.check.unknownHostKey?.fingerprint,
      });
      const { check } = HostCheckResponseSchema.parse(await trusted.json());
      expect(check.steps.find((step) => step.id === 'login')?.status).toBe('failed');
      const created = await post('/api/ideas', { title: 'On a host not logged in', host: 'nologin' });
      const { idea } = IdeaResponseSchema.parse(await created.json());

      const page = await suite.openLoggedInPage({ catalyst });
      await page.goto(`/ideas/${idea.id}`);
      await ideaHeading(page, 'On a host not logged in').waitFor();
      const notice = page.getByRole('note').filter({ hasText: 'The host nologin is not ready' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('claude on the VM is not logged in.');
      expect(await notice.textContent()).toContain('ssh -t nologin claude');
      await saveScreenshot(page, 'hosts', 'an idea on a host not ready');
      expect.soft(await findAxeViolations(page), 'axe on an idea page with its host not ready').toEqual([]);
      await notice.getByRole('link', { name: 'Check it on the Hosts page' }).click();
      await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
