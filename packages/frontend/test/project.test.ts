import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PreviewViewSchema } from '@catalyst/protocol';
import { freePort, text, toolUse, waitUntil } from '@catalyst/testkit';
import type { ServiceUnderTest } from '../../backend/test/service-harness.ts';
import { findAxeViolations } from './axe-check.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  chooseIdeaAction,
  openIdea,
  sendMessage,
  toolCards,
  transcript,
  waitForRunSummary,
  workspaceTab,
} from './idea-page.ts';

// The project's views in the browser: the built app and Catalyst on the in-process host, its claude scripted (one
// file, one fixture: each browser file starts its own).
// Checkpoints and files (issue 13): a build's summary says what it changed and shows the diff; a restore asks first
// and puts the files back on the VM; the Files view browses project/ and a file's checkpoints. A line of the diff
// takes a review comment (issue 30).
// Previews (issue 14): the project's package.json proposes its dev server; the person takes it, starts it, and
// opens the app Claude built through Catalyst's preview link, in a tab of its own.

const suite = useBrowserSuite({ host: 'in-process' });
const APP = join(import.meta.dirname, '..', '..', 'backend', 'test', 'fixtures', 'preview-server.cjs');

describe('checkpoints and files in the browser', () => {
  it('shows what a build changed, restores to before a build after asking, and browses the files', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Undoable');
    const project = service.projectDir(idea.id);
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Undoable' });
    await chooseBuild(page);

    model.enqueue(
      toolUse('Write', { file_path: join(project, 'a.txt'), content: 'one\ntwo\n' }),
      toolUse('Write', { file_path: join(project, 'src/b.ts'), content: 'export const b = 1;\n' }),
      text('Wrote two files.'),
    );
    await sendMessage(page, 'Write two files.');
    await waitForRunSummary(page, 'Completed');
    const firstLine = transcript(page).getByText('2 files changed, +3 −0');
    await firstLine.waitFor();

    // The diff, per file.
    const first = transcript(page).locator('.t-checkpoint').first();
    await first.getByRole('button', { name: 'View changes' }).click();
    const changes = first.getByRole('region', { name: 'Changes of this build' });
    await changes.getByRole('button', { name: 'a.txt added, +2 −0' }).waitFor();
    const diff = changes.getByRole('table', { name: 'Diff of a.txt' });
    expect(await diff.locator('.diff-add').allInnerTexts()).toEqual([
      expect.stringContaining('one'),
      expect.stringContaining('two'),
    ]);
    // The same diff in another tab, open before the comment is made.
    const otherTab = await suite.openLoggedInPage();
    await openIdea(otherTab, { id: idea.id, title: 'Undoable' });
    const otherFirst = transcript(otherTab).locator('.t-checkpoint').first();
    await otherFirst.getByRole('button', { name: 'View changes' }).click();
    const otherReview = otherFirst
      .getByRole('region', { name: 'Changes of this build' })
      .getByRole('region', { name: 'Review' });
    // Its review loaded, with no comment yet: what it shows later came after.
    await otherReview.getByText('To comment on a line, click its number').waitFor();

    // A comment on a line of the diff (issue 30): kept with the idea, and listed in the review under the diff.
    await diff.getByRole('button', { name: 'Comment on line 2 of a.txt' }).click();
    await diff.getByRole('textbox', { name: 'Comment on line 2 of a.txt' }).fill('Capitalise this.');
    await diff.getByRole('button', { name: 'Add comment' }).click();
    const review = changes.getByRole('region', { name: 'Review' });
    await review.getByRole('listitem').getByText('Capitalise this.').waitFor();
    expect(await review.getByRole('listitem').locator('.review-note__where').innerText()).toBe(
      'a.txt, line 2',
    );
    await diff.getByText('Capitalise this.').waitFor();
    // The other tab shows it too, without a reload.
    const otherNote = otherReview.getByRole('listitem').filter({ hasText: 'Capitalise this.' });
    await otherNote.waitFor();

    model.enqueue(
      toolUse('Bash', { command: "printf 'one\\nTWO\\n' > a.txt", description: 'Edit a' }),
      text('Edited.'),
    );
    await sendMessage(page, 'Change a.');
    await transcript(page).getByText('1 file changed, +1 −1').waitFor();
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    // The build changed the commented line: both tabs say so.
    await review.getByText('changed since').waitFor();
    await otherNote.getByText('changed since').waitFor();
    await otherTab.close();

    // Restore to before the second build: asked first, then the files are back on the VM.
    const second = transcript(page).locator('.t-checkpoint').nth(1);
    await second.getByRole('button', { name: 'Restore to before this build' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore to before this build?' });
    await dialog
      .getByText(/undone/)
      .first()
      .waitFor();
    await dialog.getByRole('button', { name: 'Restore files' }).click();
    await transcript(page)
      .getByText(/^Project restored to checkpoint/)
      .waitFor();
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\ntwo\n');

    // The Files view: the tree, a file with its lines, its checkpoints.
    await workspaceTab(page, 'Files').click();
    const files = page.getByRole('region', { name: 'Files' });
    const tree = files.getByRole('list', { name: 'Project files' });
    await tree.getByRole('button', { name: 'src' }).click();
    await tree.getByRole('button', { name: 'b.ts' }).waitFor();
    await tree.getByRole('button', { name: 'a.txt' }).click();
    const viewer = files.getByRole('region', { name: 'File a.txt' });
    const contents = viewer.getByRole('table', { name: 'Contents of a.txt' });
    await contents.getByText('two').waitFor();
    const history = viewer.getByRole('list', { name: 'History of a.txt' });
    // Current, the restore, the second build and the first: each changed a.txt.
    await expect.poll(() => history.getByRole('button').count()).toBe(4);
    await history.getByRole('button').nth(2).click();
    await contents.getByText('TWO').waitFor();

    // From a Write card to the file.
    await toolCards(page, 'Write').last().getByRole('button', { name: 'View file' }).click();
    await files.getByRole('region', { name: 'File src/b.ts' }).getByText('export').first().waitFor();
  });
});

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

    await workspaceTab(page, 'Preview').click();
    const panel = page.getByRole('region', { name: 'Preview' });
    const state = panel.getByTestId('preview-state');
    await state.getByText('Stopped').waitFor();
    const suggestion = panel.getByTestId('preview-suggestion');
    await suggestion.getByText('npm run dev').waitFor();
    await suggestion.getByRole('button', { name: 'Use it' }).click();
    await expect.poll(() => panel.getByTestId('preview-command').inputValue()).toBe('npm run dev');
    expect(await panel.getByTestId('preview-port').inputValue()).toBe(String(port));

    await panel.getByRole('button', { name: 'Start' }).click();
    // A site of its own (issue 25, finding 7).
    await state.getByText(/^Running at http:\/\/p-[0-9a-f]{20}\.localhost:\d+$/).waitFor();
    expect(await findAxeViolations(page)).toEqual([]);

    const opened = page.context().waitForEvent('page');
    await panel.getByRole('link', { name: 'Open preview' }).click();
    const tab = await opened;
    await tab.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/');
    expect(new URL(tab.url()).port).not.toBe(String(service.catalyst.port));
    await tab.close();

    // Deleting the idea now would stop its preview: the confirmation says so (issue 31).
    await chooseIdeaAction(page, 'Delete idea');
    const deleting = page.getByRole('dialog', { name: 'Delete “Previewable”?' });
    await deleting.getByText(/Its preview is running: it stops/).waitFor();
    await deleting.getByRole('button', { name: 'Keep it', exact: true }).click();
    await deleting.waitFor({ state: 'detached' });

    await panel.getByRole('button', { name: 'Stop' }).click();
    await state.getByText('Stopped').waitFor();
  });

  it('keeps each preview a site of its own: it cannot reach another preview, nor lock the person out of Catalyst', async () => {
    // Issue 25, finding 7: cookies ignore ports, so previews served under Catalyst's own host name shared its
    // cookies and each other's.
    const { service } = suite.fixture;
    const page = await suite.openLoggedInPage();
    const jar = await runningPreview(service, 'Cookie jar');
    const neighbour = await runningPreview(service, 'Next door');
    const tab = await page.context().newPage();
    await tab.goto(jar.url);
    await tab.getByRole('heading', { name: 'Hello from the preview' }).waitFor();
    // The other preview, opened in the same browser: its cookie is in the jar.
    const other = await page.context().newPage();
    await other.goto(neighbour.url);
    await other.getByRole('heading', { name: 'Hello from the preview' }).waitFor();

    // A page of one preview reaching the other with credentials: a fetch, a form post, a WebSocket.
    const socket = await tab.evaluate(async (target) => {
      await fetch(`${target}/fetched-by-the-other`, { credentials: 'include', mode: 'no-cors' }).catch(
        () => 0,
      );
      await fetch(`${target}/posted-by-the-other`, {
        method: 'POST',
        credentials: 'include',
        mode: 'no-cors',
      }).catch(() => 0);
      return new Promise<string>((resolve) => {
        const ws = new WebSocket(`${target.replace('http:', 'ws:')}/ws`);
        ws.onopen = () => {
          ws.close();
          resolve('open');
        };
        ws.onerror = () => {
          resolve('refused');
        };
      });
    }, neighbour.origin);
    expect(socket).toBe('refused');
    await other.goto(`${neighbour.origin}/seen`);
    const seen = JSON.parse((await other.locator('body').textContent()) ?? '[]') as string[];
    expect(seen).not.toContain('/fetched-by-the-other');
    expect(seen).not.toContain('/posted-by-the-other');

    // 30 cookies of 4 KB from a preview's page: Catalyst's page and API go on answering (no 431).
    const length = await tab.evaluate(() => {
      for (let index = 0; index < 30; index++) document.cookie = `big${index}=${'x'.repeat(4_000)}; path=/`;
      return document.cookie.length;
    });
    expect(length).toBeGreaterThan(100_000);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
    await page.getByText('Cookie jar').first().waitFor();
    await other.goto(`${neighbour.origin}/`);
    await other.getByRole('heading', { name: 'Hello from the preview' }).waitFor();

    await tab.close();
    await other.close();
    for (const id of [jar.id, neighbour.id]) {
      await service.api(`/api/ideas/${id}/preview/stop`, { method: 'POST' });
    }
  });
});

/** An idea whose preview is the fixture app, running: its one-time link and origin. */
async function runningPreview(service: ServiceUnderTest, title: string) {
  const idea = await service.createIdea(title);
  await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
  const port = await freePort();
  await service.api(`/api/ideas/${idea.id}`, {
    method: 'PATCH',
    body: JSON.stringify({ previewCommand: 'node server.cjs', previewPort: port }),
  });
  await service.api(`/api/ideas/${idea.id}/preview/start`, { method: 'POST' });
  let url: string | undefined;
  let origin: string | undefined;
  await waitUntil(
    async () => {
      const view = PreviewViewSchema.parse(await (await service.api(`/api/ideas/${idea.id}/preview`)).json());
      ({ url, origin } = view);
      return view.state === 'running';
    },
    { timeoutMs: 20_000, intervalMs: 100, what: `the preview of ${title} to run` },
  );
  if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
  return { id: idea.id, url, origin };
}
