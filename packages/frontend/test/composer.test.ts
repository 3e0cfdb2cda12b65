import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EventsResponseSchema } from '@catalyst/protocol';
import { collectTexts, text, toolUse } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import {
  claudeTexts,
  openIdea,
  sendMessage,
  transcript,
  userMessages,
  waitForRunSummary,
} from './idea-page.ts';

// The composer from the keyboard: Enter sends, Shift+Enter is a new line, the cursor comes back when a run ends,
// and "/" offers the commands the real CLI reported for the session.

const suite = useBrowserSuite();

const size = {
  question: 'Which size should it be?',
  header: 'Size',
  options: [
    { label: 'Small', description: 'Fits in a pocket' },
    { label: 'Large', description: 'Fills a desk' },
  ],
  multiSelect: false,
};

function messageBox(page: Page): Locator {
  return page.getByLabel('Message', { exact: true });
}

/** Resolves once the Message box has the focus (set by the page when a run ends, so awaited, not polled). */
async function waitForFocusOnMessageBox(page: Page): Promise<void> {
  const box = await messageBox(page).elementHandle();
  await page.waitForFunction((element) => document.activeElement === element, box);
}

async function slashCommandsOfSession(ideaId: string): Promise<string[]> {
  const response = await suite.fixture.service.api(`/api/ideas/${ideaId}/events`);
  const { events } = EventsResponseSchema.parse(await response.json());
  return events.flatMap((event) => (event.type === 'claude:system' ? event.slashCommands : []));
}

describe('the composer from the keyboard', () => {
  it('Shift+Enter adds a line, Enter sends, and the cursor is back in the box when the run ends', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Keyboard only');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Keyboard only' });
    const box = messageBox(page);
    await box.click();
    await page.keyboard.type('First line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    expect(await box.inputValue()).toBe('First line\nsecond line');
    expect(await userMessages(page).count(), 'Shift+Enter sent nothing').toBe(0);

    // A question in the middle of the run takes the focus away to its card, so its return is the page's doing.
    const base = model.requests.length;
    model.enqueue(toolUse('AskUserQuestion', { questions: [size] }), text('Small it is.'));
    await page.keyboard.press('Enter');
    await userMessages(page).filter({ hasText: 'second line' }).waitFor();
    expect(collectTexts(await model.waitForRequest(base))).toContain('First line\nsecond line');
    const card = transcript(page).getByRole('region', { name: 'Question: Size', exact: true });
    await card.getByRole('radio', { name: 'Small' }).check();
    await card.getByRole('button', { name: 'Submit answer' }).click();
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Small it is.' }).waitFor();
    await waitForFocusOnMessageBox(page);
    expect(await box.inputValue(), 'the sent message left the box').toBe('');
  });

  it('offers the session`s slash commands after "/", and ArrowDown then Tab completes one', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Slash commands');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Slash commands' });
    model.enqueue(text('Ready when you are.'));
    await sendMessage(page, 'Hello.');
    await waitForRunSummary(page, 'Completed');
    // What the real CLI lists in its init (2.1.197 and 2.1.331 alike); `compact` is one of its built-in commands.
    const reported = await slashCommandsOfSession(idea.id);
    expect(reported).toContain('compact');

    const box = messageBox(page);
    await box.pressSequentially('/');
    const commands = page.getByRole('listbox', { name: 'Commands', exact: true });
    await commands.waitFor();
    const options = await commands.getByRole('option').allInnerTexts();
    expect(options.length).toBeGreaterThan(1);
    for (const option of options) {
      expect(option).toMatch(/^\//);
      expect(reported).toContain(option.slice(1));
    }
    const [first = '', second = ''] = options;
    expect(await commands.getByRole('option', { selected: true }).innerText()).toBe(first);
    await box.press('ArrowDown');
    await commands.getByRole('option', { selected: true, name: second, exact: true }).waitFor();
    await box.press('Tab');
    expect(await box.inputValue()).toBe(`${second} `);
    await commands.waitFor({ state: 'detached' });
    await waitForFocusOnMessageBox(page);

    await box.fill('');
    await box.pressSequentially('/comp');
    await commands.getByRole('option', { name: '/compact', exact: true }).waitFor();
    expect(await commands.getByRole('option').allInnerTexts()).toEqual(['/compact']);
    await box.press('Tab');
    expect(await box.inputValue()).toBe('/compact ');
  });
});
