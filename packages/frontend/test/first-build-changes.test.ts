import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  openIdea,
  sendMessage,
  transcript,
  userMessages,
  waitForRunSummary,
} from './idea-page.ts';
import { saveScreenshot } from './page-problems.ts';

// Issue 40, items 14 and 15, as a person sees them: the first build of an empty project lists one change (its own,
// no "Before a build · 0 files changed"); a review sent reads as a person wrote it (the build by its words, not a
// run id), and a sent comment reads "line 1 · sent". At 1440×900 and 390×844.

const suite = useBrowserSuite({ host: 'in-process' });
const SIZES = {
  desktop: { width: 1440, height: 900, isMobile: false, hasTouch: false },
  phone: { width: 390, height: 844, isMobile: true, hasTouch: true },
};

function tab(page: Page, name: string) {
  return page.getByRole('tablist', { name: 'Workspace' }).getByRole('tab', { name, exact: true });
}

describe('the first build’s changes and its review', () => {
  for (const [size, device] of Object.entries(SIZES)) {
    it(`lists only the build’s own change and sends a review worded for a person (${size})`, async () => {
      const { service, model } = suite.fixture;
      const idea = await service.createIdea(`First build ${size}`);
      const project = service.projectDir(idea.id);
      const page = await suite.openLoggedInPage({ device });
      await openIdea(page, { id: idea.id, title: `First build ${size}` });
      await chooseBuild(page);
      model.enqueue(
        toolUse('Write', { file_path: join(project, 'a.txt'), content: 'one\ntwo\n' }),
        text('Wrote a.'),
      );
      await sendMessage(page, 'Write the first file.');
      await waitForRunSummary(page, 'Completed');

      await tab(page, 'Changes').click();
      const changes = page.getByRole('tabpanel', { name: 'Changes' });
      await changes.getByRole('article', { name: /^After a build/ }).waitFor();
      expect(await changes.getByRole('article').count()).toBe(1);
      expect(await changes.getByText(/Before a build/).count()).toBe(0);
      await saveScreenshot(page, 'first-build-changes', `changes after the first build ${size}`);
      // On a phone the tabs are one at a time: back to the conversation.
      if (size === 'phone') await tab(page, 'Conversation').click();

      const first = transcript(page).locator('.t-checkpoint').first();
      await first.getByRole('button', { name: 'View changes' }).click();
      const diff = first.getByRole('table', { name: 'Diff of a.txt' });
      await diff.getByRole('button', { name: 'Comment on line 1 of a.txt' }).click();
      await diff.getByRole('textbox', { name: 'Comment on line 1 of a.txt' }).fill('Say ONE.');
      await diff.getByRole('button', { name: 'Add comment' }).click();
      const review = first.getByRole('region', { name: 'Review' });
      await review.getByRole('listitem').getByText('Say ONE.').waitFor();
      model.enqueue(text('Done.'));
      await review.getByRole('button', { name: 'Send review' }).click();
      await waitForRunSummary(page, 'Completed', 2);

      const sent = (await userMessages(page).last().innerText()).trim();
      expect(sent).toMatch(
        /\nReview of the changes made by the build “Write the first file\.” \(checkpoint /,
      );
      expect(sent).not.toMatch(/run-/);
      const where = review.getByRole('listitem').locator('.review-note__where');
      await where.getByText('sent').waitFor();
      expect(await where.textContent()).toBe('a.txt, line 1 · sent');
      await saveScreenshot(page, 'first-build-changes', `review sent ${size}`);
    });
  }
});
