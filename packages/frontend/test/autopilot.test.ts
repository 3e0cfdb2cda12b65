import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { text, toolUse, waitForFile } from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  openIdea,
  sendMessage,
  sidewaysOverflow,
  toolCards,
  userMessages,
  waitForRunSummary,
} from './idea-page.ts';

// Autopilot in the browser (issue 12): a person composes the steps in the panel, follows them to their end or
// cancels them, and a tab in the background is told by a notification and the title.

const suite = useBrowserSuite({ host: 'in-process' });

const PHONE = { width: 360, height: 740, isMobile: true, hasTouch: true };

interface Shown {
  title: string;
  body: string;
}

/** What the init script below adds to the page's window. */
interface TestWindow {
  catalystTest: { shown: Shown[]; setHidden: (hidden: boolean) => void };
}

/**
 * Runs in the page before its own scripts. Headless Chromium reports every page as visible, and a test cannot
 * send a real tab to the background: `document.visibilityState` and `document.hidden` are overridden here, and
 * `setHidden` flips them and fires `visibilitychange` as a browser does when the tab is left. `Notification` is
 * wrapped to record each one the page makes (the permission itself is granted on the browser context).
 */
function fakeBackgroundTab(): void {
  let isHidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true,
    get: () => (isHidden ? 'hidden' : 'visible'),
  });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => isHidden });
  const shown: Shown[] = [];
  const Real = window.Notification;
  class Recording extends Real {
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, body: options?.body ?? '' });
      super(title, options);
    }
  }
  const setHidden = (hidden: boolean) => {
    isHidden = hidden;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  Object.assign(window, { Notification: Recording, catalystTest: { shown, setHidden } });
}

async function setHidden(page: Page, hidden: boolean): Promise<void> {
  // Defined by fakeBackgroundTab, which the page ran first.
  await page.evaluate((value) => {
    (window as unknown as TestWindow).catalystTest.setHidden(value);
  }, hidden);
}

function shownNotifications(page: Page): Promise<Shown[]> {
  return page.evaluate(() => (window as unknown as TestWindow).catalystTest.shown);
}

/** "Autopilot" beside the composer, then the panel it opens. */
async function openPanel(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Autopilot', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Autopilot', exact: true });
  await panel.waitFor();
  return panel;
}

function stepTexts(panel: Locator): Promise<string[]> {
  return panel.getByRole('list', { name: 'Autopilot steps' }).getByRole('listitem').allInnerTexts();
}

/** The queue under the transcript (issue 30) and its waiting messages, in order. */
function queuePanel(page: Page): Locator {
  return page.getByRole('region', { name: /^Queued messages/ });
}

function queuedTexts(page: Page): Promise<string[]> {
  return queuePanel(page).locator('.queue-message').allInnerTexts();
}

async function queueMessage(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByRole('button', { name: 'Queue', exact: true }).click();
  // Accepted: the box is cleared once the message joined the queue.
  await page.getByLabel('Message', { exact: true }).and(page.locator(':placeholder-shown')).waitFor();
}

describe('the queue of next messages in the browser', () => {
  it('queues what is typed while a build runs, edited and moved in another tab, and sends it in that order', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Queued in two tabs');
    const page = await suite.openLoggedInPage({
      device: { width: 1440, height: 900, isMobile: false, hasTouch: false },
    });
    await openIdea(page, { id: idea.id, title: 'Queued in two tabs' });
    const go = join(service.projectDir(idea.id), 'go');
    model.enqueue(toolUse('Bash', { command: waitForFile(go), description: 'Wait' }));
    await chooseBuild(page);
    await sendMessage(page, 'Wait for go.');
    await toolCards(page, 'Bash').waitFor();

    await queueMessage(page, 'First?');
    await queueMessage(page, 'Second?');
    await queuePanel(page).getByText('(2 wait)').waitFor();
    expect(await queuedTexts(page)).toEqual(['First?', 'Second?']);

    // Another tab shows the same queue, and what it changes shows in the first.
    const other = await suite.openLoggedInPage();
    await openIdea(other, { id: idea.id, title: 'Queued in two tabs' });
    await queuePanel(other).getByText('(2 wait)').waitFor();
    await queuePanel(other).getByRole('button', { name: 'Move queued message 2 up' }).click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.queue-message')].map((item) => item.textContent).join('|') ===
        'Second?|First?',
    );
    const panel = queuePanel(page);
    await panel.getByRole('button', { name: 'Edit queued message 2' }).click();
    await panel.getByLabel('Queued message 2', { exact: true }).fill('First, edited?');
    await panel.getByRole('button', { name: 'Save' }).click();
    await other.waitForFunction(
      () =>
        [...document.querySelectorAll('.queue-message')].map((item) => item.textContent).join('|') ===
        'Second?|First, edited?',
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect.soft(await findAxeViolations(page), `axe with a queue, ${colorScheme}`).toEqual([]);
    }

    model.enqueue(text('Built.'), text('Second, answered.'), text('First, answered.'));
    await writeFile(go, '');
    await userMessages(page).nth(2).waitFor();
    expect(await userMessages(page).allInnerTexts()).toEqual([
      expect.stringContaining('Wait for go.'),
      expect.stringContaining('Second?'),
      expect.stringContaining('First, edited?'),
    ]);
    await page.getByText('First, answered.').waitFor();
    await queuePanel(page).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
  });
});

describe('the idea’s own budget in the browser', () => {
  it('asks to raise the budget when the CLI stops a build at it, and when a message is refused for it', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Budget reached');
    // Less than one model call costs: the CLI stops before it runs the tool it asked for.
    const set = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ budgetUsd: 0.0001 }),
    });
    expect(set.status).toBe(200);
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Budget reached' });
    model.enqueue(toolUse('Bash', { command: 'echo never', description: 'Never runs' }));
    await chooseBuild(page);
    await sendMessage(page, 'Build it.');
    const notice = page.getByRole('region', { name: 'This idea has reached its budget' });
    await notice
      .getByText(/Claude stopped mid-way; raise the budget and it goes on where it stopped\./)
      .waitFor();
    expect(await notice.innerText()).toMatch(/It has spent \$0\.\d+ of its \$0\.0001 budget/);
    expect.soft(await findAxeViolations(page), 'axe with the budget notice').toEqual([]);
    await notice.getByRole('button', { name: 'Not now' }).click();
    await notice.waitFor({ state: 'detached' });

    // Refused at the start: the notice asks again, the message stays in the box to send once raised.
    await sendMessage(page, 'Again?');
    await notice.getByText(/Raise the budget to send your message/).waitFor();
    await notice.getByLabel('New budget ($)').fill('5');
    await notice.getByRole('button', { name: 'Raise budget' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('Again?');
    model.enqueue(text('Again, answered.'));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Again, answered.').waitFor();
    // Its run has ended too (the text comes just before): nothing is left going.
    await waitForRunSummary(page, 'Completed');
    const meta = (await (await service.api(`/api/ideas/${idea.id}`)).json()) as {
      idea: { meta: { budgetUsd: number } };
    };
    expect(meta.idea.meta.budgetUsd).toBe(5);
  });
});

describe('autopilot in the browser', () => {
  it('composes two steps from the keyboard, follows them to the end, and tells a tab in the background', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Autopilot, followed');
    // Notifications on this device go through the service worker.
    const page = await suite.openLoggedInPage({ serviceWorkers: 'allow' });
    await page.addInitScript(fakeBackgroundTab);
    await page.context().grantPermissions(['notifications'], { origin: service.catalyst.url });
    await openIdea(page, { id: idea.id, title: 'Autopilot, followed' });
    await page.getByRole('button', { name: 'Idea actions', exact: true }).click();
    await page.getByText('Notifications on', { exact: true }).waitFor();
    await page.keyboard.press('Escape');

    const panel = await openPanel(page);
    await panel.getByLabel('Step 1 message', { exact: true }).fill('Check it.');
    await panel.getByRole('button', { name: 'Add step' }).click();
    await panel.getByLabel('Step 2 message', { exact: true }).fill('Plan it.');
    // Moved with the keyboard: the focus stays with the moved step (on its other button at either end), so each
    // Enter moves the same step again.
    const messages = () =>
      Promise.all([1, 2].map((n) => panel.getByLabel(`Step ${n} message`, { exact: true }).inputValue()));
    await panel.getByRole('button', { name: 'Move step 2 up' }).press('Enter');
    expect(await messages()).toEqual(['Plan it.', 'Check it.']);
    await page.keyboard.press('Enter');
    expect(await messages()).toEqual(['Check it.', 'Plan it.']);
    await page.keyboard.press('Enter');
    expect(await messages()).toEqual(['Plan it.', 'Check it.']);

    model.enqueue(text('Planned.'), text('Checked.'));
    await setHidden(page, true);
    await panel.getByRole('button', { name: 'Start autopilot' }).click();
    await panel
      .getByRole('status')
      .filter({ hasText: /^Last autopilot: Completed · 2 steps · \$/ })
      .waitFor();
    expect(await stepTexts(panel)).toEqual([
      expect.stringMatching(/^Chat Completed · \$\d+\.\d+ · \d+\.\d s\s+Plan it\.$/),
      expect.stringMatching(/^Chat Completed · \$\d+\.\d+ · \d+\.\d s\s+Check it\.$/),
    ]);
    // The step runs end quietly; the autopilot's end is the news.
    await page.waitForFunction(() => document.title.startsWith('(1) '));
    expect(await page.title()).toBe('(1) Autopilot completed · Catalyst');
    const shown = await shownNotifications(page);
    expect(shown.map((notification) => notification.title)).toEqual(['Autopilot completed']);
    expect(shown[0]?.body).toMatch(/^Autopilot, followed · \$\d/);
    // Seen again: the count goes (React renders the change after the event, so it is awaited).
    await setHidden(page, false);
    await page.waitForFunction(() => !document.title.startsWith('('));
    expect(await page.title()).toBe('Autopilot, followed · Catalyst');

    // The outcome stays above a new draft.
    await panel.getByRole('button', { name: 'Start autopilot' }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect.soft(await findAxeViolations(page), `axe, ${colorScheme}`).toEqual([]);
    }
  });

  it('cancels a running autopilot on a phone: the running step is cancelled, the rest skipped', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Autopilot, cancelled');
    const page = await suite.openLoggedInPage({ device: PHONE });
    await openIdea(page, { id: idea.id, title: 'Autopilot, cancelled' });
    const panel = await openPanel(page);
    await panel.getByLabel('Step 1 mode', { exact: true }).selectOption('build');
    await panel.getByLabel('Step 1 message', { exact: true }).fill('Wait for go.');
    await panel.getByRole('button', { name: 'Add step' }).tap();
    await panel.getByLabel('Step 2 message', { exact: true }).fill('Never runs.');
    expect(await sidewaysOverflow(page, PHONE.width), 'the panel on a phone').toEqual({
      overflowPx: 0,
      elements: [],
    });

    // The step's Bash waits for a file nobody writes, so the autopilot is surely mid-step when it is cancelled.
    const go = join(service.projectDir(idea.id), 'go');
    model.enqueue(
      toolUse('Bash', {
        command: `${waitForFile(go)}; echo went`,
        description: 'Wait for go',
      }),
    );
    await panel.getByRole('button', { name: 'Start autopilot' }).tap();
    await toolCards(page, 'Bash').waitFor();
    await page.getByText('step 1 of 2', { exact: true }).waitFor();
    await panel.getByRole('button', { name: 'Cancel autopilot' }).tap();

    await panel
      .getByRole('status')
      .filter({ hasText: /^Last autopilot: Cancelled/ })
      .waitFor();
    expect(await stepTexts(panel)).toEqual([
      expect.stringMatching(/^Build Cancelled(\s|·)/),
      expect.stringMatching(/^Chat Skipped\s+Never runs\.$/),
    ]);
    expect(await sidewaysOverflow(page, PHONE.width), 'the outcome on a phone').toEqual({
      overflowPx: 0,
      elements: [],
    });
  });
});
