import { constants } from 'node:fs';
import { chmod, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  claudeTexts,
  openIdea,
  sendMessage,
  toolCards,
  transcript,
  waitForRunSummary,
} from './idea-page.ts';

// Question asides on the page (issue 30): "Ask aside" in the composer while a build waits in a Bash step, the
// question asked from the keyboard, the answer in the asides' own thread and never in the transcript.

const suite = useBrowserSuite({ host: 'in-process' });

describe('question asides in the browser', () => {
  it('asks aside from the keyboard while a build runs; the answer shows in its own thread, not the transcript', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Aside on the page');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Aside on the page' });
    model.enqueue(text('We keep the notes in SQLite.'));
    await sendMessage(page, 'What do we store notes in?');
    await waitForRunSummary(page, 'Completed');

    const gateDir = await mkdtemp(join(tmpdir(), 'catalyst-aside-page-'));
    await chmod(gateDir, 0o755);
    const gate = join(gateDir, 'gate');
    execFileSync('mkfifo', [gate]);
    try {
      model.enqueue(toolUse('Bash', { command: `cat ${gate}`, description: 'Wait for the gate' }));
      await chooseBuild(page);
      await sendMessage(page, 'Add tags.');
      await toolCards(page, 'Bash').waitFor();

      model.enqueue(text('Because **SQLite** needs no server.'));
      await page.getByRole('button', { name: 'Ask aside', exact: true }).click();
      const panel = page.getByRole('region', { name: 'Asides', exact: true });
      const question = panel.getByLabel('Question aside', { exact: true });
      expect(await question.evaluate((element) => element === document.activeElement)).toBe(true);
      await question.fill('Why SQLite?');
      await question.press('Control+Enter');
      const thread = panel.getByRole('list', { name: 'Asides asked' });
      await thread.getByText('needs no server.').waitFor();
      expect(await thread.locator('strong').innerText()).toBe('SQLite');
      expect(await thread.getByRole('listitem').innerText()).toMatch(
        /Why SQLite\?[\s\S]*\$\d+\.\d+ · \d+\.\d s$/,
      );
      expect(await question.inputValue()).toBe('');
      expect(await transcript(page).innerText()).not.toContain('Why SQLite?');
      expect(await transcript(page).innerText()).not.toContain('needs no server');
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect.soft(await findAxeViolations(page), `axe, ${colorScheme}`).toEqual([]);
      }

      model.enqueue(text('Tags are in.'));
      await writeFile(gate, 'open\n');
      await waitForRunSummary(page, 'Completed', 2);
      await claudeTexts(page).filter({ hasText: 'Tags are in.' }).waitFor();
      // After a reload the thread is read from the history again.
      await page.reload();
      await panel.getByText('needs no server.').waitFor();
    } finally {
      // A Bash step still waiting in the FIFO reads its end, whatever the test did.
      const release = await open(gate, constants.O_RDWR | constants.O_NONBLOCK).catch(() => undefined);
      await release?.close();
      await rm(gateDir, { recursive: true, force: true });
    }
  });
});
