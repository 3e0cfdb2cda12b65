import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { longRunningCommand, text, toolUse } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  claudeTexts,
  createIdeaFromList,
  sendMessage,
  toolCards,
  waitForRunSummary,
} from './idea-page.ts';
import { saveScreenshot } from './page-problems.ts';

// The conversation gets most of the screen (issue 40, item 17): a compact header, and only the transcript
// scrolls, on a phone and on a desktop; the page itself stays put with the header and the composer in sight.

const suite = useBrowserSuite({ host: 'in-process' });

const SIZES = [
  { width: 390, height: 844, isMobile: true, hasTouch: true },
  { width: 1440, height: 900, isMobile: false, hasTouch: false },
] as const;

/** How tall the transcript is, and how far the page itself could scroll. */
function measure(page: Page): Promise<{ transcriptPx: number; pageScrollPx: number }> {
  return page.evaluate(() => {
    const log = document.querySelector('[role="log"][aria-label="Transcript"]');
    return {
      transcriptPx: log?.getBoundingClientRect().height ?? 0,
      pageScrollPx: document.documentElement.scrollHeight - window.innerHeight,
    };
  });
}

describe('the idea page`s room for the conversation', () => {
  for (const size of SIZES) {
    const name = `${String(size.width)}×${String(size.height)}`;
    it(`at ${name}: the transcript takes the room left and is the only thing that scrolls`, async () => {
      const page = await suite.openLoggedInPage({ device: size });
      await createIdeaFromList(page, {
        title: `Room to talk at ${name}`,
        description: 'A description of a few words that a phone need not show all the time.',
      });
      const replies = Array.from(
        { length: 6 },
        (_, index) => `Reply ${String(index)}.\n\n${'A line. '.repeat(60)}`,
      );
      for (const [index, reply] of replies.entries()) {
        suite.fixture.model.enqueue(text(reply));
        await sendMessage(page, `Message ${String(index)}, please.`);
        await claudeTexts(page)
          .filter({ hasText: `Reply ${String(index)}.` })
          .waitFor();
      }
      const { transcriptPx, pageScrollPx } = await measure(page);
      expect(pageScrollPx, 'the page itself does not scroll').toBeLessThanOrEqual(1);
      // Most of the height (issue 40, item 17): at 390×844 the phone's composer is three rows, not six (0.38 before).
      expect(transcriptPx / size.height, 'the transcript’s share of the height').toBeGreaterThanOrEqual(0.5);

      // Mid-build: a run held open by a command that waits, for the screenshot the issue asks for.
      await chooseBuild(page);
      const command = longRunningCommand(30);
      suite.fixture.model.enqueue(toolUse('Bash', { command, description: 'Wait' }));
      await sendMessage(page, 'Build it, slowly.');
      await toolCards(page, 'Bash').filter({ hasText: command }).getByText('Running…').waitFor();
      expect(
        (await measure(page)).pageScrollPx,
        'mid-build, the page still does not scroll',
      ).toBeLessThanOrEqual(1);
      await saveScreenshot(page, 'phone-layout', `idea page mid-build ${name}`);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await waitForRunSummary(page, 'Cancelled');
    });
  }
});
