import { copyFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { openIdea } from './idea-page.ts';

// The Preview view in the browser (issue 14): the built app, Catalyst over the test kit's sshd. The project's
// package.json proposes its dev server; the person takes it, starts it, and opens the app Claude built through
// Catalyst's preview link, in a tab of its own.

const suite = useBrowserSuite();
const APP = join(import.meta.dirname, '..', '..', 'backend', 'test', 'fixtures', 'preview-server.cjs');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('previews in the browser', () => {
  it('takes the suggested dev server, starts it, and opens the app in a tab of its own', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('Previewable');
    const project = service.projectDir(idea.id);
    const port = await freePort();
    await copyFile(APP, join(project, 'server.cjs'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ scripts: { dev: `node server.cjs --port ${port}` } }),
    );
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Previewable' });

    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Preview' });
    const state = panel.getByTestId('preview-state');
    await state.getByText('Stopped').waitFor();
    const suggestion = panel.getByTestId('preview-suggestion');
    await suggestion.getByText('npm run dev').waitFor();
    await suggestion.getByRole('button', { name: 'Use it' }).click();
    await expect.poll(() => panel.getByTestId('preview-command').inputValue()).toBe('npm run dev');
    expect(await panel.getByTestId('preview-port').inputValue()).toBe(String(port));

    await panel.getByRole('button', { name: 'Start' }).click();
    await state.getByText(/^Running at http:\/\/127\.0\.0\.1:\d+$/).waitFor();
    expect(await findAxeViolations(page)).toEqual([]);

    const opened = page.context().waitForEvent('page');
    await panel.getByRole('link', { name: 'Open preview' }).click();
    const tab = await opened;
    await tab.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/');
    expect(new URL(tab.url()).port).not.toBe(String(service.catalyst.port));
    await tab.close();

    await panel.getByRole('button', { name: 'Stop' }).click();
    await state.getByText('Stopped').waitFor();
  });
});
