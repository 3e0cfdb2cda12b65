import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTcpProxy } from '@catalyst/testkit';
import { useBrowserSuite } from './browser-harness.ts';
import { openIdea, reconnectingBanner } from './idea-page.ts';

// Issue 39: a tab left open across an upgrade runs the old web app against the new server. It says so, with a
// button that loads the new one, rather than failing on answers it was not written for; and an answer carrying
// fields this page does not know is still shown.

const suite = useBrowserSuite({ host: 'in-process' });
const NEWER_BUILD = 'a-newer-build';

function updateBanner(page: Page) {
  return page.getByRole('status').filter({ hasText: 'Catalyst was updated — reload' });
}

/** The same web app stamped as another build: what an upgraded Catalyst serves. */
async function copyAsNewerBuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'catalyst-newer-app-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await cp(suite.appDir, dir, { recursive: true });
  const oldBuild = (await readFile(join(suite.appDir, 'build-id.txt'), 'utf8')).trim();
  const index = await readFile(join(dir, 'index.html'), 'utf8');
  expect(index).toContain(oldBuild);
  await writeFile(join(dir, 'index.html'), index.replace(oldBuild, NEWER_BUILD));
  await writeFile(join(dir, 'build-id.txt'), `${NEWER_BUILD}\n`);
  return dir;
}

describe('a page open across an upgrade', () => {
  it('offers a reload once the server serves another build, and the reloaded page is the new one', async () => {
    const { service } = suite.fixture;
    const newer = await copyAsNewerBuild();
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
    onTestFinished(() => proxy.close());
    const title = 'Open across an upgrade';
    const idea = await service.createIdea(title);
    const page = await suite.openLoggedInPage({ origin: proxy.url, serviceWorkers: 'allow' });
    await openIdea(page, { id: idea.id, title });
    expect(await updateBanner(page).count()).toBe(0);

    proxy.hold();
    await service.catalyst.close({ keepRuns: true });
    await reconnectingBanner(page).waitFor();
    proxy.retarget((await suite.restartService({ staticDir: newer })).catalyst.port);
    // The next test's pages are the suite's build again.
    onTestFinished(async () => {
      await suite.fixture.service.catalyst.close({ keepRuns: true });
      await suite.restartService();
    });
    proxy.release();

    await updateBanner(page).waitFor();
    await reconnectingBanner(page).waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Reload', exact: true }).click();
    await page
      .locator(`meta[name="catalyst-build"][content="${NEWER_BUILD}"]`)
      .waitFor({ state: 'attached' });
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
    expect(await updateBanner(page).count()).toBe(0);
  }, 90_000);

  it('shows an answer that carries fields this page does not know', async () => {
    const title = 'Answer with new fields';
    await suite.fixture.service.createIdea(title);
    const page = await suite.openLoggedInPage();
    // A newer server's list: every object in it has a field, holding an object, this build never heard of.
    await page.route('**/api/ideas', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: withUnknownFields(await response.json()) });
    });
    await page.reload();
    await page.getByText(title, { exact: true }).waitFor();
    expect(await page.getByText(/does not understand/).count()).toBe(0);
  });
});

function withUnknownFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUnknownFields);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([key, inner]) => [key, withUnknownFields(inner)]);
  return { ...Object.fromEntries(entries), addedByANewerServer: { note: 'unknown to this page' } };
}
