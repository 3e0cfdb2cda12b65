import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { streamedText, text, thinkingThenText, toolUse } from '@catalyst/testkit';
import { loginLink } from '../../backend/src/auth/routes-login.ts';
import { startServiceFixture, stopServiceFixture } from '../../backend/test/service-harness.ts';
import { buildApp } from './app-build.ts';
import { chooseBuild } from './idea-page.ts';

/**
 * Makes the README's picture of an idea's page mid-build: the real app, backend, CLI and sshd, with the scripted
 * model playing a short chat and a build that is still running its tests; beside the conversation, the workspace's
 * Files tab shows the file the build wrote (issue 31).
 * `pnpm exec tsx packages/frontend/test/readme-screenshot.ts` writes docs/images/idea-mid-build.png.
 */

const output = fileURLToPath(new URL('../../../docs/images/idea-mid-build.png', import.meta.url));
const app = await buildApp();
const fixture = await startServiceFixture({ staticDir: app.path });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const { model, service } = fixture;
  const idea = await service.createIdea('Tip splitter');
  await service.api(`/api/ideas/${idea.id}`, {
    method: 'PATCH',
    body: JSON.stringify({
      description: 'A tiny command-line tool that splits a bill and the tip between friends.',
    }),
  });
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 1300 } })).newPage();
  await page.goto(loginLink(service.catalyst.url, service.catalyst.token));
  // The link's token is exchanged for the session before the list shows: only then is the page logged in.
  await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
  await page.goto(`${service.catalyst.url}/ideas/${idea.id}`);

  const composer = page.getByLabel('Message', { exact: true });
  model.enqueue(
    thinkingThenText(
      'Keep it small: one file, no dependencies.',
      'A single Python script is enough:\n\n- `split.py` reads the **bill**, the **tip percentage** and the **number of people**\n- it prints what each person pays, rounded up to the cent\n\n```python\nshare = round(bill * (1 + tip / 100) / people, 2)\n```\n\nShall I build it with a small test?',
    ),
  );
  await composer.fill('How would you build this?');
  await composer.press('Enter');
  await page.getByRole('note', { name: 'Run summary' }).waitFor();

  await chooseBuild(page);
  model.enqueue(
    toolUse(
      'Write',
      {
        file_path: `${service.projectDir(idea.id)}/split.py`,
        content:
          'import sys\n\n\ndef split(bill: float, tip: float, people: int) -> float:\n    return round(bill * (1 + tip / 100) / people, 2)\n\n\nif __name__ == "__main__":\n    bill, tip, people = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])\n    print(f"Each pays {split(bill, tip, people):.2f}")\n',
      },
      'Writing the script first.',
    ),
    toolUse('Bash', { command: 'python3 split.py 84.50 15 3 && sleep 30', description: 'Try it' }),
    streamedText('It works: ', 'each of the three pays 32.39.'),
    text('Done.'),
  );
  await composer.fill('Yes, build it.');
  await composer.press('Enter');
  await page.getByRole('article', { name: 'Tool: Bash' }).waitFor();
  await page.getByText(/^Claude is working…/).waitFor();
  await page.getByRole('tablist', { name: 'Workspace' }).getByRole('tab', { name: 'Files' }).click();
  const files = page.getByRole('region', { name: 'Files' });
  await files.getByRole('list', { name: 'Project files' }).getByRole('button', { name: 'split.py' }).click();
  await files.getByRole('table', { name: 'Contents of split.py' }).getByText('def split').waitFor();
  await mkdir(fileURLToPath(new URL('../../../docs/images/', import.meta.url)), { recursive: true });
  await page.screenshot({ path: output, fullPage: true });
  console.log(`wrote ${output}`);
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('note', { name: 'Run summary' }).nth(1).waitFor();
} finally {
  await browser.close();
  await stopServiceFixture(fixture);
  await app.remove();
}
