import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { HostDetailResponseSchema } from '@catalyst/protocol';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type RunningCatalyst } from '../../backend/src/app.ts';
import { loginLink } from '../../backend/src/auth/routes-login.ts';
import { loadConfig } from '../../backend/src/server/config.ts';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { saveScreenshot } from './page-problems.ts';

// The first screen (issue 40, item 5): an empty ideas list says whether the default host can run claude, login
// included, and offers "Add your VM". A Catalyst without CATALYST_CONFIG_FILE has the built-in host, this machine,
// whose claude (the test kit's) the user running the tests has never logged in.

const suite = useBrowserSuite();
const DESKTOP = { width: 1440, height: 900, isMobile: false, hasTouch: false };
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true };

// Stopped after the file, not each test: the harness closes a test's pages after it, and a page whose server went
// first logs its failed reconnects as errors.
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** A Catalyst as a person's first start makes it: no hosts file, so the built-in local host is the default. */
async function startBuiltIn(): Promise<RunningCatalyst> {
  const dir: TempDir = await createTempDir('first-screen');
  const env = {
    CATALYST_PORT: '0',
    CATALYST_CONFIG_DIR: join(dir.path, 'config'),
    CATALYST_IDEAS_ROOT: join(dir.path, 'ideas'),
    CATALYST_CLAUDE_PATH: suite.fixture.claudePath,
    CATALYST_LOG_LEVEL: 'silent',
  };
  const catalyst = await startCatalyst({
    config: loadConfig(env, { homeDir: dir.path }),
    staticDir: suite.appDir,
  });
  stops.push(async () => {
    await catalyst.close();
    await dir.remove();
  });
  return catalyst;
}

async function openFirstScreen(catalyst: RunningCatalyst, device: typeof DESKTOP): Promise<Page> {
  const page = await suite.openPage({ origin: catalyst.url, device });
  await page.goto(loginLink('', catalyst.token));
  await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
  return page;
}

describe('the first screen', () => {
  it('says the built-in host cannot run claude until it is logged in, with this machine’s fix, and offers “Add your VM”', async () => {
    const catalyst = await startBuiltIn();
    const page = await openFirstScreen(catalyst, DESKTOP);
    const where = page.getByRole('region', { name: 'Where new ideas run' });
    await where.getByText('local (this machine) cannot run claude yet', { exact: false }).waitFor();
    const said = (await where.textContent()) ?? '';
    expect(said).toContain('claude on this machine is not logged in');
    expect(said).toContain('run `claude` in a terminal on this machine');
    expect(said).not.toContain('ssh -t');
    await saveScreenshot(page, 'first-screen', 'default host not ready 1440x900');
    expect.soft(await findAxeViolations(page), 'axe on the first screen, host not ready').toEqual([]);

    // The check the screen used is the host's last check: the Hosts page and `catalyst hosts` read the same.
    const detail = HostDetailResponseSchema.parse(
      await (
        await fetch(`${catalyst.url}/api/hosts/local`, {
          headers: { authorization: `Bearer ${catalyst.token}` },
        })
      ).json(),
    );
    const login = detail.lastCheck?.steps.find((step) => step.id === 'login');
    expect(login?.status).toBe('failed');
    expect(login?.fix).not.toContain('ssh -t');

    await where.getByRole('link', { name: 'Add your VM' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    await page.getByRole('form', { name: 'Add a host' }).waitFor();
    // The built-in host's note points at the button where it is (at the top), not "below".
    expect(await page.getByText('Add your VM below').count()).toBe(0);
  });

  it('on a phone too', async () => {
    const catalyst = await startBuiltIn();
    const page = await openFirstScreen(catalyst, PHONE);
    const where = page.getByRole('region', { name: 'Where new ideas run' });
    await where.getByText('cannot run claude yet', { exact: false }).waitFor();
    await where.getByRole('link', { name: 'Add your VM' }).waitFor();
    await saveScreenshot(page, 'first-screen', 'default host not ready phone');
  });

  it('says new ideas run on the default host when it is ready', async () => {
    const page = await suite.openLoggedInPage({ device: DESKTOP });
    const where = page.getByRole('region', { name: 'Where new ideas run' });
    await where.getByText('New ideas run on vm', { exact: false }).waitFor();
    expect(await where.textContent()).toContain('logged in');
  });
});
