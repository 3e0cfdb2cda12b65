import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { freePort, longRunningCommand, text, toolUse } from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  openIdea,
  sendMessage,
  toolCards,
  transcript,
  userMessages,
  waitForRunSummary,
} from './idea-page.ts';
import { saveScreenshot } from './page-problems.ts';

// The idea's page as a workspace (issue 31): on a wide screen the conversation beside a side panel of tabs
// (Changes, Files, Preview, Settings), its tab in the URL and its width remembered; on a phone the same tabs, one
// at a time. The running app in the Preview tab's frame, or why not. One fixture for the file.

const suite = useBrowserSuite({ host: 'in-process' });
const WIDE = { width: 1440, height: 900, isMobile: false, hasTouch: false };
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true };
const APP = join(import.meta.dirname, '..', '..', 'backend', 'test', 'fixtures', 'preview-server.cjs');

async function expectAccessibleInBothSchemes(page: Page, where: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await saveScreenshot(page, 'workspace', `${where} ${colorScheme}`);
    expect.soft(await findAxeViolations(page), `axe on ${where}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

function tab(page: Page, name: string) {
  return page.getByRole('tablist', { name: 'Workspace' }).getByRole('tab', { name, exact: true });
}

describe('the workspace on a wide screen', () => {
  it('shows a diff beside the transcript, restores any checkpoint, and keeps its tab and width', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Side by side');
    const project = service.projectDir(idea.id);
    const page = await suite.openLoggedInPage({ device: WIDE });
    await openIdea(page, { id: idea.id, title: 'Side by side' });
    await chooseBuild(page);
    for (const [index, version] of ['one', 'two'].entries()) {
      model.enqueue(
        toolUse('Write', { file_path: join(project, 'a.txt'), content: `${version}\n` }),
        text(`Wrote ${version}.`),
      );
      await sendMessage(page, `Write ${version}.`);
      await transcript(page).getByText(`Wrote ${version}.`).waitFor();
      await waitForRunSummary(page, 'Completed', index + 1);
    }

    // Changes is the side panel's first tab: every checkpoint, newest first.
    expect(await tab(page, 'Changes').getAttribute('aria-selected')).toBe('true');
    const changes = page.getByRole('tabpanel', { name: 'Changes' });
    const builds = changes.getByRole('article', { name: /^After a build/ });
    await expect.poll(() => builds.count()).toBe(2);
    await builds.first().getByRole('button', { name: 'View changes' }).click();
    const diff = builds.first().getByRole('table', { name: 'Diff of a.txt' });
    await diff.getByText('two').waitFor();
    const diffBox = await diff.boundingBox();
    const logBox = await transcript(page).boundingBox();
    expect(diffBox !== null && logBox !== null && diffBox.x >= logBox.x + logBox.width).toBe(true);
    expect(await diff.isVisible()).toBe(true);
    await expectAccessibleInBothSchemes(page, 'a diff beside the transcript');

    // Restore to the first build's checkpoint, which "Restore to before this build" could not reach.
    await builds.last().getByRole('button', { name: 'Restore to this checkpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore to this checkpoint?' });
    await dialog.getByRole('button', { name: 'Restore files' }).click();
    await changes.getByRole('article', { name: /^Restore,/ }).waitFor();
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\n');

    // The tabs are a tablist: the arrow keys move along them; the open one is in the URL, so a reload keeps it.
    await tab(page, 'Changes').focus();
    await page.keyboard.press('ArrowRight');
    expect(await tab(page, 'Files').evaluate((element) => element === document.activeElement)).toBe(true);
    await page.getByRole('region', { name: 'Files' }).waitFor();
    expect(new URL(page.url()).searchParams.get('tab')).toBe('files');

    // The splitter widens the side panel from the keyboard, and the width is remembered.
    const splitter = page.getByRole('separator', { name: 'Side panel width' });
    const before = Number(await splitter.getAttribute('aria-valuenow'));
    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(Number(await splitter.getAttribute('aria-valuenow'))).toBe(before + 64);
    await page.reload();
    await page.getByRole('region', { name: 'Files' }).waitFor();
    expect(await tab(page, 'Files').getAttribute('aria-selected')).toBe('true');
    expect(Number(await splitter.getAttribute('aria-valuenow'))).toBe(before + 64);
    await expectAccessibleInBothSchemes(page, 'files beside the transcript');

    // The shortcuts, listed behind "?": single keys open the tabs, "/" goes to the message box. Not typed into a
    // text field (the message box takes the cursor back when the page finds no run going after the reload).
    await tab(page, 'Files').focus();
    await page.keyboard.press('?');
    const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await shortcuts.getByRole('cell', { name: 'Go to the message box' }).waitFor();
    await page.keyboard.press('Escape');
    await shortcuts.waitFor({ state: 'detached' });
    await page.keyboard.press('p');
    expect(await tab(page, 'Preview').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('/');
    await expect
      .poll(() =>
        page.getByLabel('Message', { exact: true }).evaluate((box) => box === document.activeElement),
      )
      .toBe(true);
  });
});

describe('the workspace on a phone', () => {
  it('brings a diff opened above the composer into view, and says so when an idea was deleted', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('A diff in a pocket');
    const project = service.projectDir(idea.id);
    const page = await suite.openLoggedInPage({ device: PHONE, expectedConsole: [/404/] });
    await openIdea(page, { id: idea.id, title: 'A diff in a pocket' });
    await chooseBuild(page);
    model.enqueue(
      toolUse('Write', { file_path: join(project, 'notes.md'), content: '# Notes\n\nFirst line.\n' }),
      text('Wrote the notes.'),
    );
    await sendMessage(page, 'Write the notes.');
    await waitForRunSummary(page, 'Completed');

    // The build's line sits just above the composer: its diff opens at the top of the window, not under it.
    await transcript(page).getByRole('button', { name: 'View changes' }).last().click();
    const row = transcript(page).getByRole('table', { name: 'Diff of notes.md' }).getByText('First line.');
    await row.waitFor();
    const rowBox = await row.boundingBox();
    const composerBox = await page.getByLabel('Message', { exact: true }).boundingBox();
    expect(rowBox !== null && composerBox !== null && rowBox.y + rowBox.height <= composerBox.y).toBe(true);
    expect(rowBox !== null && rowBox.y >= 0).toBe(true);

    // Scrolled away, "Jump to latest" is at the transcript's foot, inside it: above the composer and over nothing
    // outside the transcript (a queue's buttons below it stay free, issue 40). Only the transcript scrolls (issue
    // 40); the page too where a small window makes it.
    await page.evaluate(() => {
      document.querySelector('[role="log"]')?.scrollTo(0, 0);
      window.scrollTo(0, 0);
    });
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor();
    const jumpBox = await jump.boundingBox();
    const dockBox = await page.getByLabel('Message', { exact: true }).boundingBox();
    expect(jumpBox !== null && dockBox !== null && jumpBox.y + jumpBox.height <= dockBox.y).toBe(true);
    const logBox = await transcript(page).boundingBox();
    expect(
      jumpBox !== null && logBox !== null && jumpBox.y + jumpBox.height <= logBox.y + logBox.height,
    ).toBe(true);
    expect(jumpBox !== null && logBox !== null && jumpBox.y >= logBox.y).toBe(true);
    await jump.click();
    await jump.waitFor({ state: 'detached' });

    // A build cancelled mid-step says so in the person's words; the CLI's notes to Claude are a click away.
    const command = longRunningCommand(30);
    model.enqueue(toolUse('Bash', { command, description: 'Wait' }));
    await sendMessage(page, 'Wait a while.');
    await toolCards(page, 'Bash').filter({ hasText: command }).getByText('Running…').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await waitForRunSummary(page, 'Cancelled');
    await transcript(page).getByText('Stopped: cancelled by you.').first().waitFor();
    expect(
      await transcript(page)
        .getByText(/Request interrupted by user/)
        .isVisible(),
    ).toBe(false);
    expect(
      await transcript(page)
        .getByText(/want to proceed/)
        .isVisible(),
    ).toBe(false);
    expect(await toolCards(page, 'Bash').getByText('Error', { exact: true }).count()).toBe(0);

    // Back to it after it was deleted: a plain sentence and a way to the list, not "Loading…".
    expect((await service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' })).ok).toBe(true);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'This idea was deleted' }).waitFor();
    await page.getByRole('link', { name: 'Back to your ideas' }).click();
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
  });

  it('shows one tab at a time, the conversation first', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('In a pocket');
    const page = await suite.openLoggedInPage({ device: PHONE });
    await openIdea(page, { id: idea.id, title: 'In a pocket' });
    expect(await tab(page, 'Conversation').getAttribute('aria-selected')).toBe('true');
    expect(await transcript(page).isVisible()).toBe(true);

    await tab(page, 'Changes').click();
    await page
      .getByRole('region', { name: 'Changes' })
      .getByText(/No checkpoint yet/)
      .waitFor();
    expect(await transcript(page).isVisible()).toBe(false);
    expect(await page.getByLabel('Message', { exact: true }).isVisible()).toBe(false);
    await expectAccessibleInBothSchemes(page, 'the Changes tab on a phone');

    await tab(page, 'Conversation').click();
    await transcript(page).waitFor();
    await page.getByRole('button', { name: 'Idea actions' }).click();
    await page
      .getByRole('dialog', { name: 'Idea actions' })
      .getByRole('button', { name: 'Edit idea' })
      .waitFor();
    await expectAccessibleInBothSchemes(page, 'the idea actions on a phone');
  });
});

describe('the preview in the workspace', () => {
  it('says when the command listens on another port than the one set, and takes it on a click', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('Another port');
    const project = service.projectDir(idea.id);
    const listensOn = await freePort();
    const setTo = await freePort();
    await copyFile(APP, join(project, 'server.cjs'));
    const patched = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({
        previewCommand: `PORT=${String(listensOn)} node server.cjs`,
        previewPort: setTo,
      }),
    });
    expect(patched.ok).toBe(true);
    const page = await suite.openLoggedInPage({ device: WIDE });
    // The tab is in the URL: a link opens the idea at its preview.
    await page.goto(`/ideas/${idea.id}?tab=preview`);
    const panel = page.getByRole('region', { name: 'Preview' });
    await panel.getByRole('button', { name: 'Start' }).click();
    await panel
      .getByText(`Your command listens on ${String(listensOn)}, not on ${String(setTo)}: use it?`)
      .waitFor();
    await panel.getByRole('button', { name: `Use port ${String(listensOn)}` }).click();
    const state = panel.getByTestId('preview-state');
    await state.getByText(/^Running at /).waitFor();
    // The app on the port taken shows in the frame (a Stop before its page loaded would have it load a 502).
    const app = panel.frameLocator('iframe[title="The app, as the preview serves it"]');
    await app.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    await panel.getByRole('button', { name: 'Stop' }).click();
    await state.getByText('Stopped').waitFor();
  });
});

describe('the app in the Preview tab', () => {
  /** An idea whose preview is the fixture app (with `env` before its command), started; its page at the Preview tab. */
  async function previewTab(title: string, env = '') {
    const { service } = suite.fixture;
    const idea = await service.createIdea(title);
    await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
    const patched = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ previewCommand: `${env}node server.cjs`, previewPort: await freePort() }),
    });
    expect(patched.ok).toBe(true);
    expect((await service.api(`/api/ideas/${idea.id}/preview/start`, { method: 'POST' })).ok).toBe(true);
    const page = await suite.openLoggedInPage({
      device: WIDE,
      expectedConsole: [/Refused to display .* in a frame because it set 'X-Frame-Options' to 'deny'/],
    });
    await page.goto(`/ideas/${idea.id}?tab=preview`);
    const panel = page.getByRole('region', { name: 'Preview' });
    const stop = async () => {
      await panel.getByRole('button', { name: 'Stop' }).click();
      await panel.getByTestId('preview-state').getByText('Stopped').waitFor();
    };
    return { page, panel, stop };
  }

  it('shows the running app in a frame, with the path it shows, Reload, and Open in a tab', async () => {
    const { page, panel, stop } = await previewTab('Framed app');
    const app = panel.frameLocator('iframe[title="The app, as the preview serves it"]');
    // Signed in inside the frame: its cookie is Partitioned, kept under Catalyst's page (else a 401 page).
    await app.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    expect(await app.locator('#path').innerText()).toBe('/');
    const path = panel.getByTestId('preview-frame-path');
    await path.getByText('/', { exact: true }).waitFor();
    await expectAccessibleInBothSchemes(page, 'the app in the preview tab');

    // A page the app moved to: the path follows, and Reload loads that page again, signed in by a fresh link.
    const frame = page.frames().find((candidate) => new URL(candidate.url()).hostname.endsWith('.localhost'));
    if (frame === undefined) throw new Error('the preview’s frame is there');
    await frame.goto(`${new URL(frame.url()).origin}/deeper?page=2`);
    await path.getByText('/deeper?page=2', { exact: true }).waitFor();
    await panel.getByRole('button', { name: 'Reload', exact: true }).click();
    await app.locator('#path').getByText('/deeper?page=2').waitFor();

    const opened = page.context().waitForEvent('page');
    await panel.getByRole('button', { name: 'Open in a tab' }).click();
    const tab = await opened;
    await tab.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/deeper');
    await tab.close();
    await stop();
  });

  it('says so, instead of a blank frame, when the app forbids framing', async () => {
    const { page, panel, stop } = await previewTab('Unframeable app', 'PREVIEW_X_FRAME_OPTIONS=DENY ');
    const refused = panel.getByTestId('preview-frame-refused');
    await refused
      .getByText(
        'This app does not allow being shown in a frame (its X-Frame-Options header); open it in a tab.',
      )
      .waitFor();
    expect(await panel.locator('iframe').count()).toBe(0);
    await expectAccessibleInBothSchemes(page, 'an app that forbids framing');
    const opened = page.context().waitForEvent('page');
    await refused.getByRole('button', { name: 'Open in a tab' }).click();
    const tab = await opened;
    await tab.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    await tab.close();
    await stop();
  });
});

describe('two tabs at once', () => {
  it('sends both messages: the one that comes while Claude is busy waits in the queue, not in its box', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Two tabs');
    const first = await suite.openLoggedInPage({ device: WIDE });
    const second = await suite.openLoggedInPage({ device: WIDE });
    await openIdea(first, { id: idea.id, title: 'Two tabs' });
    await openIdea(second, { id: idea.id, title: 'Two tabs' });
    model.enqueue(text('One answer.'), text('Another answer.'));
    await Promise.all([
      sendMessage(first, 'From the first tab.'),
      sendMessage(second, 'From the second tab.'),
    ]);
    for (const page of [first, second]) {
      await transcript(page).getByText('Another answer.').waitFor();
      expect(await userMessages(page).allInnerTexts()).toEqual([
        expect.stringContaining('From the'),
        expect.stringContaining('From the'),
      ]);
      expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
      expect(await page.getByRole('alert').count()).toBe(0);
    }
  });
});
