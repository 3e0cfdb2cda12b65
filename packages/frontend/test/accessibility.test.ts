import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { colorQuestion, stall, text, thinkingThenText, toolUse } from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  chooseIdeaAction,
  claudeTexts,
  ideaLink,
  openIdea,
  runSummaries,
  sendMessage,
  toolCards,
  transcript,
  waitForRunSummary,
  workspaceTab,
} from './idea-page.ts';
import { saveScreenshot } from './page-problems.ts';

// axe-core's WCAG 2.1 A and AA rules on every screen, in the light and the dark colour scheme: the login screen,
// the ideas list, an idea's page full of what a transcript can show (Markdown, thinking, a diff, a command, an
// open question) with each panel open, and the delete dialog.

const suite = useBrowserSuite({ host: 'in-process' });
/** The app's own login check answers 401 without a cookie, which Chromium logs as a console error. */
const notLoggedIn = [/status of 401 \(Unauthorized\)/];

const chatReply = [
  '## A plan',
  '',
  'Keep it **small**: one file, `split.py`, and a [test](https://example.com/) beside it.',
  '',
  '- it reads the bill and the number of people',
  '- it prints what each person pays',
  '',
  '```python',
  'def share(bill: float, people: int) -> float:',
  '    # rounded to the cent',
  '    return round(bill / people, 2)',
  '```',
  '',
  '> Shall I build it?',
].join('\n');

/** Runs axe on the page as it is, in light and then dark, saving a screenshot of each; back to light after. */
async function expectAccessible(page: Page, where: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await saveScreenshot(page, 'accessibility', `${where} ${colorScheme}`);
    const violations = await findAxeViolations(page);
    expect.soft(violations, `axe on ${where}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('accessibility (axe, WCAG 2.1 A and AA)', () => {
  it('the login screen, before and after a wrong token', async () => {
    const page = await suite.openPage({ expectedConsole: notLoggedIn });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Log in to Catalyst' }).waitFor();
    await expectAccessible(page, 'login');

    await page.goto('/login?token=wrong');
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await expectAccessible(page, 'login refused');
  });

  it('the ideas list, with ideas in several states and one running', async () => {
    const { service, model } = suite.fixture;
    const captured = await service.createIdea('Tip splitter');
    await service.api(`/api/ideas/${captured.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ description: 'Splits a bill and the tip between friends.' }),
    });
    const chatted = await service.createIdea('Greeting bot');
    const built = await service.createIdea('Hello script');
    const running = await service.createIdea('Slow build');
    const client = await service.connect();
    try {
      for (const idea of [chatted, built, running]) await client.subscribe(idea.id);
      model.enqueue(text('Hello.'));
      await client.run(chatted.id, 'chat', 'Say hello.');
      model.enqueue(text('Nothing to write yet.'));
      await client.run(built.id, 'build', 'Build it.');
      model.enqueue(stall('Working on it'));
      const from = client.frames.length;
      client.send({ type: 'build', ideaId: running.id, message: 'Take your time.' });
      const started = await client.waitFor((f) => f.type === 'run:started' && f.ideaId === running.id, from);

      const page = await suite.openLoggedInPage();
      await ideaLink(page, 'Tip splitter').waitFor();
      await page.getByText('running', { exact: true }).waitFor();
      await expectAccessible(page, 'ideas list');

      await page.getByRole('button', { name: 'New idea' }).click();
      await page.getByRole('form', { name: 'New idea' }).waitFor();
      await expectAccessible(page, 'ideas list new idea form');

      await service.catalyst.services.runs.cancelRun(running.id);
      await client.untilEnded(started);
    } finally {
      client.close();
    }
  });

  it('an idea`s page after a chat, a build and with a question open, with each panel and the delete dialog', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Tip splitter, built');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Tip splitter, built' });
    await expectAccessible(page, 'new idea page');

    model.enqueue(thinkingThenText('Keep it small: one file, no dependencies.', chatReply));
    await sendMessage(page, 'How would you build this?');
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).locator('pre').getByText('rounded to the cent').waitFor();

    await chooseBuild(page);
    const target = join(service.projectDir(idea.id), 'split.py');
    model.enqueue(
      toolUse('Write', {
        file_path: target,
        content: 'def share(bill, people):\n    return bill / people\n',
      }),
      toolUse('Edit', {
        file_path: target,
        old_string: '    return bill / people',
        new_string: '    return round(bill / people, 2)',
      }),
      toolUse('Bash', { command: 'ls -l && echo done', description: 'List the files' }),
      text('Wrote split.py.'),
    );
    await sendMessage(page, 'Build it.');
    await runSummaries(page)
      .nth(1)
      .filter({ hasText: /^\s*Completed\b/ })
      .waitFor();
    await toolCards(page, 'Write').getByLabel(`Diff of ${target}`, { exact: true }).waitFor();
    await toolCards(page, 'Edit')
      .getByLabel(`Diff of ${target}`, { exact: true })
      .locator('.diff-del')
      .waitFor();
    await toolCards(page, 'Bash').getByText('ls -l && echo done', { exact: true }).waitFor();

    model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
    await sendMessage(page, 'Pick a color with me.');
    const card = transcript(page).getByRole('region', { name: 'Question: Color', exact: true });
    await card.getByText('Cool color').waitFor();
    // What a person would open to read: the thinking, and any tool input or long result.
    await page.evaluate(() => {
      for (const details of document.querySelectorAll('details')) details.open = true;
    });
    await workspaceTab(page, 'Settings').click();
    await page.getByRole('region', { name: 'Settings', exact: true }).waitFor();
    await expectAccessible(page, 'idea page with a question and Settings open');

    await chooseIdeaAction(page, 'Edit idea');
    const edit = page.getByRole('form', { name: 'Edit idea', exact: true });
    await edit.waitFor();
    await expectAccessible(page, 'idea page with a question and Edit open');
    await edit.getByRole('button', { name: 'Cancel', exact: true }).click();

    await card
      .getByRole('group', { name: colorQuestion.question })
      .getByRole('radio', { name: 'Blue' })
      .check();
    await card.getByRole('button', { name: 'Submit answer' }).click();
    await card.getByText('Answered by you').waitFor();
    await runSummaries(page)
      .nth(2)
      .filter({ hasText: /^\s*Completed\b/ })
      .waitFor();
    await claudeTexts(page).filter({ hasText: 'Blue it is.' }).waitFor();
    await expectAccessible(page, 'idea page after the answer');

    // axe leaves the contrast inside a modal <dialog> (the top layer) undecided; the dialog's colours are the
    // page's own (--fg on --bg-raised, a "danger" button), judged everywhere else. Its other rules do run.
    await chooseIdeaAction(page, 'Delete idea');
    const dialog = page.getByRole('dialog', { name: 'Delete “Tip splitter, built”?' });
    await dialog.waitFor();
    await expectAccessible(page, 'delete dialog');
    await dialog.getByRole('button', { name: 'Keep it', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  });
});
