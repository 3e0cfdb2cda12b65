import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTcpProxy, text, type TcpProxy } from '@catalyst/testkit';
import { spawnCatalyst, type CatalystProcess } from '../../backend/test/catalyst-process-kit.ts';
import { useBrowserSuite, within } from './browser-harness.ts';
import {
  claudeTexts,
  ideaHeading,
  openIdea,
  reconnectingBanner,
  runSummaries,
  sendMessage,
} from './idea-page.ts';

// Issue 25, finding 0: an idle idea (one finished chat, no run going) across restarts of Catalyst, clean ones and
// SIGKILLs. After each the open page comes back live by itself, a page opened afresh is live too (its header is the
// idea's, not "Loading…"; the composer takes a message), and a new chat gets its answer. A SIGKILL leaves the
// history's seq reservation up to 10,000 above the newest event: the page must not wait for an event that far on.

const suite = useBrowserSuite();
/** For a step outside the page: a Catalyst stopping, killed or starting. */
const STEP_LIMIT_MS = 45_000;

/** The composer's line when nothing holds a message back; it says "Reconnecting…" until the page caught up. */
function composerReady(page: Page) {
  return page
    .getByRole('status')
    .filter({ hasText: /^\s*Enter sends, Shift\+Enter starts a new line\.\s*$/ });
}

async function expectLive(page: Page, title: string): Promise<void> {
  await reconnectingBanner(page).waitFor({ state: 'hidden' });
  await composerReady(page).waitFor();
  expect(await page.getByLabel('Message', { exact: true }).isEnabled()).toBe(true);
  await ideaHeading(page, title).waitFor();
}

/**
 * After a restart: the open page is live again, so is the same page reloaded, and a chat sent from it is answered
 * (its answer shown, one more run summary).
 */
async function expectUsable(page: Page, title: string, round: string): Promise<void> {
  await expectLive(page, title);
  await page.reload();
  await expectLive(page, title);
  const ended = await runSummaries(page).count();
  suite.fixture.model.enqueue(text(`Answer after ${round}.`));
  await sendMessage(page, `Still there after ${round}?`);
  await claudeTexts(page)
    .filter({ hasText: `Answer after ${round}.` })
    .waitFor();
  await runSummaries(page)
    .nth(ended)
    .filter({ hasText: /^\s*Completed\b/ })
    .waitFor();
}

/** A new idea with one finished chat, its page open through a proxy that can follow Catalyst to another port. */
async function openChattedIdea(title: string): Promise<{ page: Page; proxy: TcpProxy }> {
  const { service, model } = suite.fixture;
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
  onTestFinished(() => proxy.close());
  const idea = await service.createIdea(title);
  const page = await suite.openLoggedInPage({ origin: proxy.url });
  await openIdea(page, { id: idea.id, title });
  model.enqueue(text('The first answer.'));
  await sendMessage(page, 'A first question.');
  await claudeTexts(page).filter({ hasText: 'The first answer.' }).waitFor();
  await runSummaries(page)
    .filter({ hasText: /^\s*Completed\b/ })
    .waitFor();
  return { page, proxy };
}

describe('an idle idea across restarts of Catalyst', () => {
  it('stopped and started twice: the page is live after each, and a new chat is answered', async () => {
    const title = 'Idle across clean restarts';
    const { page, proxy } = await openChattedIdea(title);
    for (const round of ['the first restart', 'the second restart']) {
      // Held, not refused, while no Catalyst listens: a browser logs a refused connection as an error.
      proxy.hold();
      await suite.fixture.service.catalyst.close({ keepRuns: true });
      await reconnectingBanner(page).waitFor();
      proxy.retarget((await suite.restartService()).catalyst.port);
      proxy.release();
      await expectUsable(page, title, round);
    }
  }, 90_000);

  it('killed (SIGKILL) twice: the page is live after each, and a new chat is answered', async () => {
    const title = 'Idle across kills';
    const { page, proxy } = await openChattedIdea(title);
    const { sshd, claudePath, service } = suite.fixture;
    const settings = {
      sshd,
      user: sshd.users.bash,
      claudePath,
      reuse: { configDir: service.configDir, ideasRoot: service.ideasRoot },
      staticDir: suite.appDir,
      // No claude waits warm for the next turn: a killed Catalyst would leave it on the VM until its lease lapses.
      env: { CATALYST_WARM_PER_HOST: '0' },
    };
    // From here Catalyst is a process of its own, which SIGKILL really ends; the suite's own one is back at the end.
    // Each step outside the page has its own limit, so a hang names its step (the test's limit says nothing).
    proxy.hold();
    await within(service.stop(), 'the suite’s Catalyst to stop', STEP_LIMIT_MS);
    let running: CatalystProcess | undefined;
    try {
      for (const round of ['a first start', 'the first kill', 'the second kill']) {
        proxy.hold();
        await within(
          Promise.resolve(running?.kill()),
          `Catalyst to be killed before ${round}`,
          STEP_LIMIT_MS,
        );
        await reconnectingBanner(page).waitFor();
        running = await spawnCatalyst(settings);
        proxy.retarget(Number(new URL(running.url).port));
        proxy.release();
        await expectUsable(page, title, round);
      }
    } finally {
      proxy.hold();
      await within(Promise.resolve(running?.kill()), 'the last Catalyst process to be killed', STEP_LIMIT_MS);
      const restarted = await within(
        suite.restartService(),
        'the suite’s Catalyst to start again',
        STEP_LIMIT_MS,
      );
      proxy.retarget(restarted.catalyst.port);
      proxy.release();
    }
    await expectUsable(page, title, 'the third kill');
  }, 150_000);
});
