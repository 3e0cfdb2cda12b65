import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { text, toolUse, waitForFile } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import { chooseBuild, openIdea, sendMessage, toolCards, waitForRunSummary } from './idea-page.ts';

// The controls used while a build runs (issue 40, items 9 to 12), at desktop and phone size: "Ask aside" opens in
// view and sends on Enter; a queue is named a queue; the composer keeps the person's mode; a budget pause is a pause.

const suite = useBrowserSuite({ host: 'in-process' });

const SIZES = {
  desktop: { width: 1440, height: 900, isMobile: false, hasTouch: false },
  phone: { width: 390, height: 844, isMobile: true, hasTouch: true },
};

async function isInViewport(locator: Locator, page: Page): Promise<boolean> {
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  if (box === null || size === null) return false;
  return box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;
}

function modeRadio(page: Page, name: 'Chat' | 'Build'): Locator {
  return page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name });
}

describe.each(Object.entries(SIZES))('while a build runs, at %s size', (sizeName, device) => {
  it('opens "Ask aside" in view with the focus in its box; Enter asks, Shift+Enter is a new line', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea(`Aside in view, ${sizeName}`);
    const page = await suite.openLoggedInPage({ device });
    await openIdea(page, { id: idea.id, title: `Aside in view, ${sizeName}` });
    model.enqueue(text('Notes live in SQLite.'));
    await sendMessage(page, 'Where do notes live?');
    await waitForRunSummary(page, 'Completed');

    await page.getByRole('button', { name: 'Ask aside', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Asides', exact: true });
    const question = panel.getByLabel('Question aside', { exact: true });
    expect(await question.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await isInViewport(question, page), 'the question box in view').toBe(true);
    // Not under the composer, which sticks to the window's bottom: the box is what a tap on it reaches.
    expect(
      await question.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === element;
      }),
      'the question box uncovered',
    ).toBe(true);
    await page.keyboard.type('Why');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('SQLite?');
    expect(await question.inputValue()).toBe('Why\nSQLite?');

    model.enqueue(text('It needs no server.'));
    await page.keyboard.press('Enter');
    await panel.getByRole('list', { name: 'Asides asked' }).getByText('It needs no server.').waitFor();
    expect(await question.inputValue()).toBe('');
  });

  it('names a plain queue a queue, not an autopilot', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea(`Queue named, ${sizeName}`);
    const page = await suite.openLoggedInPage({ device });
    await openIdea(page, { id: idea.id, title: `Queue named, ${sizeName}` });
    const go = join(service.projectDir(idea.id), 'go');
    model.enqueue(toolUse('Bash', { command: waitForFile(go), description: 'Wait' }));
    await chooseBuild(page);
    await sendMessage(page, 'Wait for go.');
    await toolCards(page, 'Bash').waitFor();
    for (const message of ['First?', 'Second?']) {
      await page.getByLabel('Message', { exact: true }).fill(message);
      await page.getByRole('button', { name: 'Queue', exact: true }).click();
      await page.getByLabel('Message', { exact: true }).and(page.locator(':placeholder-shown')).waitFor();
    }
    const composer = page.getByRole('region', { name: 'Composer' });
    await composer.getByText(/step \d of 2/).waitFor();
    expect(await composer.innerText()).toMatch(/Queue · step \d of 2/);
    await page.getByRole('button', { name: 'Autopilot', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Autopilot', exact: true });
    await panel.getByRole('button', { name: 'Cancel queue', exact: true }).waitFor();
    expect(await panel.innerText()).not.toMatch(/Cancel autopilot|^Autopilot:/m);

    model.enqueue(text('Built.'), text('First, answered.'), text('Second, answered.'));
    await writeFile(go, '');
    await waitForRunSummary(page, 'Completed', 3);
  });

  it('says a run stopped at the budget paused, in the transcript as in the notice, aligned', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea(`Budget pause, ${sizeName}`);
    const set = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ budgetUsd: 0.0001 }),
    });
    expect(set.status).toBe(200);
    const page = await suite.openLoggedInPage({ device });
    await openIdea(page, { id: idea.id, title: `Budget pause, ${sizeName}` });
    // Less than one model call costs: the CLI stops before it runs the tool it asked for.
    model.enqueue(toolUse('Bash', { command: 'echo never', description: 'Never runs' }));
    await chooseBuild(page);
    await sendMessage(page, 'Build it.');
    const notice = page.getByRole('region', { name: 'This idea has reached its budget' });
    await notice.waitFor();
    const summary = await waitForRunSummary(page, 'Paused');
    const line = await summary.innerText();
    expect(line).toMatch(/^Paused at the budget · /);
    expect(line).not.toMatch(/Failed|Reached maximum budget|\.\./);
    expect(await summary.getAttribute('class')).not.toContain('failed');
    expect(await notice.innerText()).not.toMatch(/\.\./);
    const boxes = await Promise.all(
      [
        notice.getByLabel('New budget ($)'),
        ...['Raise and go on', 'Remove the budget'].map((name) => notice.getByRole('button', { name })),
      ].map((locator) => locator.boundingBox()),
    );
    const [input, raise, remove] = boxes.map((box) => {
      if (box === null) throw new Error('a budget control is not shown');
      return box;
    });
    if (input === undefined || raise === undefined || remove === undefined)
      throw new Error('three boxes expected');
    const middle = (box: { y: number; height: number }) => box.y + box.height / 2;
    // The amount and "Raise and go on" on one row, their middles level; the next button apart from it, not touching.
    expect(Math.abs(middle(raise) - middle(input)), 'Raise and go on beside its amount').toBeLessThan(2);
    if (Math.abs(middle(remove) - middle(raise)) < 2) {
      expect(remove.x - (raise.x + raise.width), 'the gap between the buttons').toBeGreaterThanOrEqual(4);
    }
  });

  it('starts autopilot steps in the composer’s mode, and keeps the composer’s mode after they ran', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea(`Mode kept, ${sizeName}`);
    const page = await suite.openLoggedInPage({ device });
    await openIdea(page, { id: idea.id, title: `Mode kept, ${sizeName}` });
    await chooseBuild(page);
    await page.getByRole('button', { name: 'Autopilot', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Autopilot', exact: true });
    expect(await panel.getByLabel('Step 1 mode', { exact: true }).inputValue()).toBe('build');
    await panel.getByRole('button', { name: 'Add step' }).click();
    expect(await panel.getByLabel('Step 2 mode', { exact: true }).inputValue()).toBe('build');
    await panel.getByRole('button', { name: 'Remove step 2' }).click();
    await panel.getByLabel('Step 1 mode', { exact: true }).selectOption('chat');
    await panel.getByLabel('Step 1 message', { exact: true }).fill('Talk it through.');
    model.enqueue(text('Talked.'));
    await panel.getByRole('button', { name: 'Start autopilot' }).click();
    await panel
      .getByRole('status')
      .filter({ hasText: /Completed · 1 step/ })
      .waitFor();
    await waitForRunSummary(page, 'Completed');
    expect(await modeRadio(page, 'Build').isChecked()).toBe(true);
    expect(await page.getByRole('region', { name: 'Composer' }).innerText()).not.toContain('Opened in Chat');
  });
});
