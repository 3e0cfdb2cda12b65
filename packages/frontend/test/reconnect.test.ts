import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { startTcpProxy, text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { scanRunProcessesIn } from '../../backend/test/host-test-kit.ts';
import { useBrowserSuite, within } from './browser-harness.ts';
import {
  chooseBuild,
  claudeTexts,
  openIdea,
  reconnectingBanner,
  runSummaries,
  sendMessage,
  toolCards,
  userMessages,
  waitForRunSummary,
} from './idea-page.ts';

// The network drops under a running build: the page says so, reconnects by itself, catches up on what it missed,
// and shows every message exactly once, as the server's history has it; a reload shows the same history.

const suite = useBrowserSuite({ host: 'in-process' });

const EventsSchema = z.object({ events: z.array(RelayEventSchema) });

async function serverHistory(ideaId: string): Promise<RelayEvent[]> {
  const response = await suite.fixture.service.api(`/api/ideas/${ideaId}/events`);
  expect(response.status).toBe(200);
  return EventsSchema.parse(await response.json()).events;
}

/** The transcript holds each message of the history once: every user message, text and tool call, in order. */
async function expectTranscriptMatches(page: Page, history: RelayEvent[]): Promise<void> {
  const texts = history.flatMap((e) => (e.type === 'claude:text' ? [e.text] : []));
  const sent = history.flatMap((e) => (e.type === 'run:started' ? [e.message] : []));
  const tools = history.flatMap((e) => (e.type === 'claude:tool_use' ? [e.name] : []));
  const ended = history.filter((e) => e.type === 'run:ended');
  expect(texts.length).toBeGreaterThan(1);

  await waitForRunSummary(page, 'Completed');
  const shownTexts = await claudeTexts(page).allInnerTexts();
  expect(shownTexts).toHaveLength(texts.length);
  texts.forEach((value, index) => {
    expect(shownTexts[index]).toContain(value);
  });
  const shownSent = await userMessages(page).allInnerTexts();
  expect(shownSent).toHaveLength(sent.length);
  sent.forEach((value, index) => {
    expect(shownSent[index]).toContain(value);
  });
  expect(await toolCards(page, 'Bash').count()).toBe(tools.filter((name) => name === 'Bash').length);
  expect(await runSummaries(page).count()).toBe(ended.length);
}

/** A new idea's page, loaded through a TCP proxy the test can cut; the proxy closes after the suite's checks. */
async function openIdeaThroughProxy(title: string, expectedConsole: readonly RegExp[] = []) {
  const { service } = suite.fixture;
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
  // After the suite's afterEach: its screenshot and checks see the page still connected.
  onTestFinished(() => proxy.close());
  const idea = await service.createIdea(title);
  const page = await suite.openLoggedInPage({ origin: proxy.url, expectedConsole });
  await openIdea(page, { id: idea.id, title });
  // Live (the history caught up: the box is enabled), so a test that loses answers from now on loses only its own.
  await page.getByLabel('Message', { exact: true }).and(page.locator(':enabled')).waitFor();
  return { proxy, idea, page };
}

describe('a dropped connection', () => {
  it('shows "Reconnecting…", catches up, and keeps every message exactly once', async () => {
    const { model, service } = suite.fixture;
    const { proxy, idea, page } = await openIdeaThroughProxy('Flaky network');
    await chooseBuild(page);
    const base = model.requests.length;
    model.enqueue(
      toolUse('Bash', { command: 'sleep 3.21', description: 'A slow step' }, 'Starting the slow step.'),
      toolUse('Bash', { command: 'sleep 1.23', description: 'A second step' }),
      text('The slow step is done.'),
    );
    await sendMessage(page, 'Run the slow step.');
    await toolCards(page, 'Bash').filter({ hasText: 'sleep 3.21' }).waitFor();
    // This run's own step (by run tag and place): a sleep another run left cannot pass for it.
    const runProcesses = () => scanRunProcessesIn(join(service.ideasRoot, idea.id));
    await waitUntil(async () => (await runProcesses()).some((p) => p.cmdline === 'sleep 3.21'), {
      timeoutMs: 20_000,
      what: 'the slow step on the VM',
    });

    proxy.hold();
    expect(proxy.dropConnections(), 'the page had a connection to drop').toBeGreaterThan(0);
    await reconnectingBanner(page).waitFor();
    // The first tool finishes and the model is asked again while the page is away: those events are caught up on
    // reconnect; the second step's usually arrive live after it.
    await within(model.waitForRequest(base + 1), 'the model`s request after the first step');
    proxy.release();
    await reconnectingBanner(page).waitFor({ state: 'hidden' });
    await waitForRunSummary(page, 'Completed');

    const history = await serverHistory(idea.id);
    await expectTranscriptMatches(page, history);
    expect(history.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });

    await page.reload();
    await expectTranscriptMatches(page, history);
  });

  it('Catalyst restarts under a running build: the page reconnects, and the build goes on to the end', async () => {
    const { model } = suite.fixture;
    // While Catalyst is down the page's reconnects fail, and Chromium logs each (its words vary with the moment).
    const { proxy, idea, page } = await openIdeaThroughProxy('Restart under a build', [
      /WebSocket connection to .* failed/,
    ]);
    await chooseBuild(page);
    const go = join(suite.fixture.service.projectDir(idea.id), 'go');
    model.enqueue(
      toolUse(
        'Bash',
        {
          command: `${waitForFile(go)}; echo went`,
          description: 'Wait for the restart',
        },
        'Waiting for the restart.',
      ),
      text('Built across the restart.'),
    );
    await sendMessage(page, 'Build across a restart.');
    await toolCards(page, 'Bash').filter({ hasText: 'Wait for the restart' }).waitFor();

    // An update: Catalyst stops and lets the build go on on the VM; the next one listens on another port.
    await suite.fixture.service.catalyst.close({ keepRuns: true });
    await reconnectingBanner(page).waitFor();
    const restarted = await suite.restartService();
    proxy.retarget(restarted.catalyst.port);
    await reconnectingBanner(page).waitFor({ state: 'hidden' });
    await writeFile(go, '');
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Built across the restart.' }).waitFor();

    const history = await serverHistory(idea.id);
    expect(history.filter((event) => event.type === 'run:started')).toHaveLength(1);
    await expectTranscriptMatches(page, history);
    await page.reload();
    await expectTranscriptMatches(page, history);
  });

  it('between a send and its answer: the run that started is found in the replay, and the box is cleared', async () => {
    const { model } = suite.fixture;
    // The cut also ends a REST request the page may have in flight on that connection (CI: the idea's details,
    // fetched again on the run's start); Chromium logs it (the line's text names no URL), and the page fetches
    // again once reconnected.
    const { proxy, idea, page } = await openIdeaThroughProxy('Lost answer', [
      /^Failed to load resource: net::ERR_EMPTY_RESPONSE$/,
    ]);
    const base = model.requests.length;
    model.enqueue(text('Heard you anyway.'));

    expect(proxy.loseAnswers(), 'the page had a connection').toBeGreaterThan(0);
    await sendMessage(page, 'Can you hear me?');
    // The message reached Catalyst (its run asked the model); the page heard nothing back.
    await within(model.waitForRequest(base), 'the model`s request for the lost send');
    expect(await userMessages(page).count()).toBe(0);
    proxy.hold();
    proxy.dropConnections();
    await reconnectingBanner(page).waitFor();
    proxy.release();

    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Heard you anyway.' }).waitFor();
    expect(await userMessages(page).allInnerTexts()).toEqual([expect.stringContaining('Can you hear me?')]);
    // Its run started, so the message is not offered again: the box is empty, and nothing was sent twice.
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
    const history = await serverHistory(idea.id);
    expect(history.filter((event) => event.type === 'run:started')).toHaveLength(1);
  });
});
