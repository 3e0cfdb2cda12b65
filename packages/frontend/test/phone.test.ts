import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  claudeTexts,
  createIdeaFromList,
  ideaLink,
  runSummaries,
  sidewaysOverflow,
  toolCards,
} from './idea-page.ts';

// A phone-sized screen: long code, long words, wide files and long command output wrap or scroll inside their
// own boxes; the page itself never scrolls sideways, and the composer stays in reach.

const suite = useBrowserSuite({ host: 'in-process' });

const PHONE = { width: 360, height: 740, isMobile: true, hasTouch: true };
const NO_OVERFLOW = { overflowPx: 0, elements: [] };
const TITLE = 'A pocket-sized idea whose title is long enough to need a second line on a phone';

const longWord = 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(4);
const longCode = `const total = ${Array.from({ length: 30 }, (_, index) => `price${index}`).join(' + ')};`;
const chatReply = `Here is a long word: ${longWord}.\n\n\`\`\`js\n${longCode}\n\`\`\`\n\nThat is all.`;
const wideLine = `WIDE = "${'w'.repeat(291)}"`;
const bashCommand = `head -c 600 /dev/zero | tr '\\0' z; echo; seq 1 200`;

/** Types a message and taps "Send", as a thumb would; the button must be in the window to be tapped. */
async function tapSend(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(message);
  const send = page.getByRole('button', { name: 'Send', exact: true });
  await expectWithinWidth(page, 'Send');
  await send.tap();
}

async function expectWithinWidth(page: Page, buttonName: string): Promise<void> {
  const box = await page.getByRole('button', { name: buttonName, exact: true }).boundingBox();
  expect(box, `"${buttonName}" is laid out`).not.toBeNull();
  expect(box?.x).toBeGreaterThanOrEqual(0);
  expect((box?.x ?? 0) + (box?.width ?? 0), `"${buttonName}" ends inside the window`).toBeLessThanOrEqual(
    PHONE.width,
  );
}

describe('on a phone', () => {
  it('never scrolls sideways: long chat text, a wide file and long output stay inside the page', async () => {
    const { service, model } = suite.fixture;
    const page = await suite.openLoggedInPage({ device: PHONE });
    expect(await page.evaluate(() => window.innerWidth)).toBe(PHONE.width);
    const id = await createIdeaFromList(page, { title: TITLE, description: longWord });
    expect(await sidewaysOverflow(page, PHONE.width), 'the new idea`s page').toEqual(NO_OVERFLOW);

    model.enqueue(text(chatReply));
    await tapSend(page, 'Show me something long.');
    await claudeTexts(page).filter({ hasText: 'That is all.' }).waitFor();
    await runSummaries(page)
      .filter({ hasText: /^\s*Completed\b/ })
      .waitFor();
    await claudeTexts(page).locator('pre').getByText('price29').waitFor();
    expect(await sidewaysOverflow(page, PHONE.width), 'after a long word and a long code line').toEqual(
      NO_OVERFLOW,
    );

    await chooseBuild(page);
    const target = join(service.projectDir(id), 'wide.py');
    model.enqueue(
      toolUse('Write', { file_path: target, content: `${wideLine}\n` }),
      toolUse('Bash', { command: bashCommand, description: 'Print a lot' }),
      text('Wrote wide.py and printed a lot.'),
    );
    await tapSend(page, 'Write a wide file and print a lot.');
    await runSummaries(page)
      .nth(1)
      .filter({ hasText: /^\s*Completed\b/ })
      .waitFor();
    expect(await readFile(target, 'utf8')).toBe(`${wideLine}\n`);
    expect(wideLine).toHaveLength(300);

    await page.getByRole('link', { name: '← Ideas' }).tap();
    await ideaLink(page, TITLE).waitFor();
    expect(await sidewaysOverflow(page, PHONE.width), 'the ideas list').toEqual(NO_OVERFLOW);
    await ideaLink(page, TITLE).tap();
    await runSummaries(page).nth(1).waitFor();
    const bash = toolCards(page, 'Bash');
    await bash.getByText('Input', { exact: true }).tap();
    await bash.getByText('Result', { exact: true }).tap();
    await bash
      .locator('pre')
      .filter({ hasText: 'z'.repeat(600) })
      .waitFor();
    await toolCards(page, 'Write').getByText(wideLine).waitFor();
    expect(
      await sidewaysOverflow(page, PHONE.width),
      'after a 300-character line and long output, opened',
    ).toEqual(NO_OVERFLOW);
    await expectWithinWidth(page, 'Send');
  });
});
