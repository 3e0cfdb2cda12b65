import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { claudeJobsOf } from '../../backend/test/fast/fast-kit.ts';
import type { Job } from '../../backend/test/support/in-process-host/jobs.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { chooseBuild, openIdea, sendMessage, toolCards, waitForRunSummary } from './idea-page.ts';

// Issue 25, finding 15: the composer opens in the idea's last mode and says so, during a build and after it, in
// a browser that never saw the idea too; a switch the person makes is remembered for the idea across a reload.

const suite = useBrowserSuite({ host: 'in-process' });

function modeRadio(page: Page, name: 'Chat' | 'Build') {
  return page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name });
}

/** Waits for the page to have caught up (its opening line is there), then says which mode is checked. */
async function checkedMode(page: Page, line: string): Promise<'Chat' | 'Build'> {
  await page.getByText(line, { exact: true }).waitFor();
  const isBuild = await modeRadio(page, 'Build').isChecked();
  expect(await modeRadio(page, 'Chat').isChecked()).toBe(!isBuild);
  return isBuild ? 'Build' : 'Chat';
}

const LAST_RUN_BUILD = 'Opened in Build: this idea’s last run was a build.';

/** The idea's one claude on the VM, once it is of `mode` (chat's command restricts its tools, build's not). */
async function waitingClaude(ideaId: string, mode: 'chat' | 'build'): Promise<Job> {
  let found: Job | undefined;
  await waitUntil(
    () => {
      const claudes = claudeJobsOf(suite.fixture, ideaId);
      const [only] = claudes;
      const isOfMode = only !== undefined && only.spec.argv.includes('--tools') === (mode === 'chat');
      found = claudes.length === 1 && isOfMode ? only : undefined;
      return found !== undefined;
    },
    { timeoutMs: 15_000, what: `one ${mode} claude of the idea on the VM` },
  );
  if (found === undefined) throw new Error('no claude');
  return found;
}

describe('the composer’s mode', () => {
  it('opens in Build on a reload during and after a build, and keeps a switch to Chat across a reload', async () => {
    const { service, model } = suite.fixture;
    const title = 'Built and reloaded';
    const idea = await service.createIdea(title);
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title });
    await chooseBuild(page);
    const go = join(service.projectDir(idea.id), 'go');
    model.enqueue(
      toolUse(
        'Bash',
        {
          command: `${waitForFile(go)}; echo went`,
          description: 'Wait for the reload',
        },
        'Waiting for the reload.',
      ),
      text('Built it.'),
    );
    await sendMessage(page, 'Build it.');
    await toolCards(page, 'Bash').filter({ hasText: 'Wait for the reload' }).waitFor();

    await page.reload();
    await toolCards(page, 'Bash').filter({ hasText: 'Wait for the reload' }).waitFor();
    expect(await checkedMode(page, LAST_RUN_BUILD), 'during the build').toBe('Build');
    await writeFile(go, '');
    await waitForRunSummary(page, 'Completed');
    await page.reload();
    await waitForRunSummary(page, 'Completed');
    expect(await checkedMode(page, LAST_RUN_BUILD), 'after the build').toBe('Build');

    // A browser that never saw the idea (no remembered switch) opens it in Build too.
    const other = await suite.openLoggedInPage();
    await openIdea(other, { id: idea.id, title });
    expect(await checkedMode(other, LAST_RUN_BUILD), 'another browser').toBe('Build');

    // The person's own switch is remembered for the idea.
    await modeRadio(other, 'Chat').click();
    expect(await modeRadio(other, 'Chat').isChecked()).toBe(true);
    await other.reload();
    expect(await checkedMode(other, 'Opened in Chat, as you left it for this idea.'), 'after a switch').toBe(
      'Chat',
    );
  });

  it('has a build claude waiting once the person switches to Build, and the Build runs in it', async () => {
    const { service, model } = suite.fixture;
    const title = 'Switched to Build';
    const idea = await service.createIdea(title);
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title });
    await waitingClaude(idea.id, 'chat');
    await chooseBuild(page);
    // The page said so: the chat's claude is gone, a build claude waits (polled: the VM's jobs).
    const claude = await waitingClaude(idea.id, 'build');
    model.enqueue(text('Built at once.'));
    await sendMessage(page, 'Build it.');
    await waitForRunSummary(page, 'Completed');
    // The turn ran in that claude, which waits again for the next: the same process, not a second one.
    expect(await waitingClaude(idea.id, 'build')).toBe(claude);
  });
});
