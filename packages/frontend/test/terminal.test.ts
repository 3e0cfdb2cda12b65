import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTcpProxy, waitUntil } from '@catalyst/testkit';
import { scanRunProcessesIn } from '../../backend/test/host-test-kit.ts';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { openTerminal } from '../../backend/test/terminal-client.ts';
import { chooseIdeaAction, openIdea } from './idea-page.ts';

// Issue 31: the idea's terminal in the page, over SSH to the test kit's sshd, with xterm.js in Chromium.

const suite = useBrowserSuite();

function screen(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

/**
 * Types a command into the terminal and returns what it printed: between two lines the shell prints around it, told
 * from the echoed command line by the sums they hold.
 */
async function run(page: Page, name: string, command: string, marker: string): Promise<string> {
  await screen(page, name).click();
  await page.keyboard.type(`echo "${marker}-b$((0+1))"; ${command}; echo "${marker}-e$((40+2))"`);
  await page.keyboard.press('Enter');
  const rows = screen(page, name).locator('.xterm-rows');
  await expect
    .poll(async () => (await rows.innerText()).includes(`${marker}-e42`), { timeout: 15_000 })
    .toBe(true);
  const shown = await rows.innerText();
  return shown.slice(shown.lastIndexOf(`${marker}-b1`), shown.lastIndexOf(`${marker}-e42`));
}

function state(page: Page, name: string): Locator {
  return page.locator('.terminal-view', { has: screen(page, name) }).getByRole('status');
}

describe('the terminal', () => {
  it('runs commands in the project folder, follows a resize, survives a dropped socket, and leaves nothing behind', async () => {
    const { service } = suite.fixture;
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
    onTestFinished(() => proxy.close());
    const idea = await service.createIdea('Terminal in the page');
    const page = await suite.openLoggedInPage({ origin: proxy.url });
    // xterm.js comes with the first terminal shown, not with every page.
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    const terminalChunks = () => scripts.filter((path) => /\/assets\/TerminalView-[^/]*\.js$/.test(path));
    await openIdea(page, { id: idea.id, title: 'Terminal in the page' });

    await page.getByRole('tab', { name: 'Terminal', exact: true }).click();
    // Showing the tab starts no shell: the person asks for one.
    await page.getByText(/^No terminal is open\./).waitFor();
    expect(terminalChunks()).toEqual([]);
    await page.getByRole('button', { name: 'New terminal' }).click();
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('Connected');
    expect(terminalChunks()).toHaveLength(1);
    // The side panel is narrow: a long path wraps onto the next line.
    expect((await run(page, 'Terminal 1', 'pwd', 'pwd-done')).replaceAll('\n', '')).toContain(
      service.projectDir(idea.id),
    );
    expect(await findAxeViolations(page)).toEqual([]);
    expect(await run(page, 'Terminal 1', 'echo "hi-$((6*7))"', 'echo-done')).toContain('hi-42');

    const before = await run(page, 'Terminal 1', 'stty size', 'size-1');
    await page.setViewportSize({ width: 760, height: 900 });
    await expect
      .poll(async () => (await run(page, 'Terminal 1', 'stty size', 'size-2')).match(/\d+ \d+/)?.[0])
      .not.toBe(before.match(/\d+ \d+/)?.[0]);

    const [terminalId] = service.catalyst.services.terminals.idsOf(idea.id);
    await run(page, 'Terminal 1', 'KEPT=kept-$((1000+234))', 'set-done');
    const reconnected = page.waitForEvent('websocket', (socket) => socket.url().endsWith('/ws/terminal'));
    expect(proxy.dropConnections()).toBeGreaterThan(0);
    await (
      await reconnected
    ).waitForEvent('framereceived', (frame) => String(frame.payload).includes('"ready"'));
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('Connected');
    expect(await run(page, 'Terminal 1', 'echo "value=$KEPT"', 'get-done')).toContain('value=kept-1234');
    expect(service.catalyst.services.terminals.idsOf(idea.id)).toEqual([terminalId]);

    await page.getByRole('button', { name: 'New terminal' }).click();
    await expect.poll(() => state(page, 'Terminal 2').innerText()).toContain('Connected');
    expect(service.catalyst.services.terminals.idsOf(idea.id)).toHaveLength(2);
    await run(page, 'Terminal 2', 'sleep 303 & true', 'bg-done');
    const ideaDir = join(service.ideasRoot, idea.id);
    // The idea's pre-warmed claude carries a run tag too: the terminals' own are looked for.
    const terminalTags = new Set(service.catalyst.services.terminals.runTagsOf(idea.id));
    const terminalProcesses = async () =>
      (await scanRunProcessesIn(ideaDir)).filter((found) => terminalTags.has(found.runTag));
    // A job forked in the background shows the shell's command line until its exec: waited for.
    await waitUntil(async () => (await terminalProcesses()).some((found) => found.cmdline === 'sleep 303'), {
      timeoutMs: 10_000,
      what: 'the background sleep to start',
    });

    await page.getByRole('button', { name: 'Close Terminal 2' }).click();
    await expect.poll(() => state(page, 'Terminal 2').innerText()).toContain('The terminal was closed.');
    expect((await terminalProcesses()).map((found) => found.cmdline)).not.toContain('sleep 303');
    await page.getByRole('button', { name: 'Terminal 1', exact: true }).click();
    await page.getByRole('button', { name: 'Close Terminal 1' }).click();
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('The terminal was closed.');
    expect(await terminalProcesses()).toEqual([]);
  });

  it('holds a shell that prints faster than the page draws, and draws all of it', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('A flood in the terminal');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'A flood in the terminal' });
    await page.getByRole('tab', { name: 'Terminal', exact: true }).click();
    const opened = page.waitForEvent('websocket', (socket) => socket.url().endsWith('/ws/terminal'));
    await page.getByRole('button', { name: 'New terminal' }).click();
    const flow: unknown[] = [];
    (await opened).on('framesent', ({ payload }) => {
      if (typeof payload === 'string' && payload.includes('"flow"')) flow.push(JSON.parse(payload));
    });
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('Connected');
    // About 15 MB: the shell prints it far faster than xterm.js draws it, which would pile up in the page (xterm
    // throws away what comes past 50 MB of it). The page asks the server to hold the output, then to send it again.
    await screen(page, 'Terminal 1').click();
    await page.keyboard.type('seq 1 2000000; echo "flood-$((40+2))"');
    await page.keyboard.press('Enter');
    // A page busy for a moment (as a phone's often is): what came meanwhile is handed to xterm.js at once.
    await page.evaluate(() => {
      const until = performance.now() + 500;
      while (performance.now() < until);
    });
    const rows = screen(page, 'Terminal 1').locator('.xterm-rows');
    await expect
      .poll(async () => (await rows.innerText()).includes('flood-42'), { timeout: 30_000 })
      .toBe(true);
    expect(await rows.innerText()).toMatch(/\n1999998\n1999999\n2000000\nflood-42\n/);
    expect(flow.slice(0, 2)).toEqual([
      { type: 'flow', paused: true },
      { type: 'flow', paused: false },
    ]);
    // All of it drawn: the last word is to send again (its frame may reach the test a moment after the screen).
    await expect.poll(() => flow.at(-1)).toEqual({ type: 'flow', paused: false });
    await page.getByRole('button', { name: 'Close Terminal 1' }).click();
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('The terminal was closed.');
  });

  it('says in the delete dialog that the idea’s open terminals end, another client’s too', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('Terminals that end');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Terminals that end' });
    // A terminal of another client (another tab, the CLI): only the server knows of it.
    const other = await openTerminal(service, idea.id);
    await chooseIdeaAction(page, 'Delete idea');
    const deleting = page.getByRole('dialog', { name: 'Delete “Terminals that end”?' });
    await deleting
      .getByText('It has a terminal open: its shell ends, and everything started in it stops.', {
        exact: true,
      })
      .waitFor();
    await deleting.getByRole('button', { name: 'Keep it', exact: true }).click();
    await deleting.waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: 'Terminal', exact: true }).click();
    await page.getByRole('button', { name: 'New terminal' }).click();
    await expect.poll(() => state(page, 'Terminal 1').innerText()).toContain('Connected');
    await chooseIdeaAction(page, 'Delete idea');
    await deleting
      .getByText('It has 2 terminals open: their shells end, and everything started in them stops.', {
        exact: true,
      })
      .waitFor();
    await deleting.getByRole('button', { name: 'Delete', exact: true }).click();
    expect(await other.client.waitForFrame('ended')).toMatchObject({ reason: 'idea_deleted' });
    // The terminals end first; the deletion goes on (the idea is held until its folder is gone).
    const { ideas } = service.catalyst.services;
    await expect
      .poll(async () => (await ideas.listIdeas()).some((listed) => listed.id === idea.id))
      .toBe(false);
  });
});
