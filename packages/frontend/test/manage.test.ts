import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdeaResponseSchema, type IdeaView } from '@catalyst/protocol';
import { text, toolUse } from '@catalyst/testkit';
import { toolResultsOf } from '../../backend/test/question-client.ts';
import { useBrowserSuite } from './browser-harness.ts';
import { saveScreenshot } from './page-problems.ts';
import {
  chooseBuild,
  chooseIdeaAction,
  choosePolicy,
  claudeTexts,
  editIdea,
  ideaHeading,
  ideaLink,
  openIdea,
  permissionCard,
  runSummaries,
  sendMessage,
  toolCards,
  waitForRunSummary,
  workspaceTab,
} from './idea-page.ts';

// Managing an idea from its page: the permission policy and the cards it brings, editing, deleting.

const suite = useBrowserSuite({ host: 'in-process' });

/** What Catalyst tells the model when a person clicks "Deny" without words (backend prompt-answers.ts). */
const DENIED_WITHOUT_WORDS = 'The person denied this tool call.';

async function fetchIdea(ideaId: string): Promise<{ status: number; idea?: IdeaView }> {
  const response = await suite.fixture.service.api(`/api/ideas/${ideaId}`);
  if (response.status !== 200) return { status: response.status };
  return { status: 200, idea: IdeaResponseSchema.parse(await response.json()).idea };
}

describe('managing an idea in the browser', () => {
  it('asks before each tool call once the policy is "ask": Allow writes the file, Deny stops a command', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Careful builder');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Careful builder' });
    await choosePolicy(page, { label: 'Permission policy', value: 'ask' });
    expect((await fetchIdea(idea.id)).idea?.meta?.permissionPolicy).toBe('ask');

    await chooseBuild(page);
    const target = join(service.projectDir(idea.id), 'hello.py');
    model.enqueue(toolUse('Write', { file_path: target, content: 'print("hello")\n' }), text('Wrote it.'));
    await sendMessage(page, 'Write hello.py.');
    // The request shows inside the card of the call it is about: the call (its diff), the decision, the result.
    const writeCard = toolCards(page, 'Write');
    const write = writeCard.getByRole('region', { name: 'Permission: Write', exact: true });
    await write.waitFor();
    expect(await permissionCard(page, 'Write').count()).toBe(1);
    await writeCard.getByLabel(`Diff of ${target}`, { exact: true }).getByText('print("hello")').waitFor();
    expect(existsSync(target), 'nothing is written before the person allows it').toBe(false);
    await write.getByRole('button', { name: 'Allow', exact: true }).click();
    await write.getByText('Allowed', { exact: true }).waitFor();
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Wrote it.' }).waitFor();
    expect(await readFile(target, 'utf8')).toBe('print("hello")\n');
    expect(await write.getByRole('button').count(), 'a decided request has nothing to click').toBe(0);

    const denied = join(service.projectDir(idea.id), 'denied.txt');
    const command = `touch ${denied}`;
    const base = model.requests.length;
    model.enqueue(toolUse('Bash', { command, description: 'Make a file' }), text('Understood, I left it.'));
    await sendMessage(page, 'Touch a file.');
    const bashCard = toolCards(page, 'Bash');
    const bash = bashCard.getByRole('region', { name: 'Permission: Bash', exact: true });
    await bash.waitFor();
    await bashCard.getByText(command, { exact: true }).waitFor();
    await bash.getByRole('button', { name: 'Deny', exact: true }).click();
    await bash.getByText('Denied', { exact: true }).waitFor();
    await runSummaries(page)
      .nth(1)
      .filter({ hasText: /^\s*Completed\b/ })
      .waitFor();
    await claudeTexts(page).filter({ hasText: 'Understood, I left it.' }).waitFor();
    // The session goes on, so each request carries the earlier results too: the denial is the one new result.
    const earlier = await toolResultsOf(model, base);
    expect((await toolResultsOf(model, base + 1)).slice(earlier.length)).toEqual([
      { content: DENIED_WITHOUT_WORDS, isError: true },
    ]);
    expect(existsSync(denied), 'the denied command did not run').toBe(false);
    await toolCards(page, 'Bash').getByText('Error', { exact: true }).waitFor();
  });

  it('edits the title and description, keeps the idea on "Keep it", and deletes it with its folder', async () => {
    const { service } = suite.fixture;
    const idea = await service.createIdea('Draft name');
    const folder = join(service.ideasRoot, idea.id);
    expect(existsSync(folder)).toBe(true);
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Draft name' });
    await editIdea(page, { title: 'Final name', description: 'Now with a real description.' });
    await page.getByText('Now with a real description.', { exact: true }).waitFor();
    expect(await fetchIdea(idea.id)).toMatchObject({
      idea: { meta: { title: 'Final name', description: 'Now with a real description.' } },
    });

    // A budget: the header shows what is spent of it; an empty field removes it.
    await workspaceTab(page, 'Settings').click();
    const settings = page.getByRole('region', { name: 'Settings', exact: true });
    const budget = settings.getByRole('form', { name: 'Budget', exact: true });
    await budget.getByLabel('Budget (USD)', { exact: true }).fill('5');
    await budget.getByRole('button', { name: 'Save budget', exact: true }).click();
    await page.getByText('$0.0000 of $5.0000', { exact: true }).waitFor();
    expect(await fetchIdea(idea.id)).toMatchObject({ idea: { meta: { budgetUsd: 5 } } });
    await budget.getByLabel('Budget (USD)', { exact: true }).fill('');
    await budget.getByRole('button', { name: 'Save budget', exact: true }).click();
    await page.getByText('$0.0000', { exact: true }).waitFor();
    expect((await fetchIdea(idea.id)).idea?.meta).not.toHaveProperty('budgetUsd');

    // The answering model: a name the CLI takes is saved; anything else is refused on the page, saying why.
    const model = settings.getByRole('form', { name: 'Answering model', exact: true });
    await model.getByLabel('Answering model', { exact: true }).fill('claude-sonnet-4-5');
    await model.getByRole('button', { name: 'Save model', exact: true }).click();
    await settings.getByText('Saved.', { exact: true }).waitFor();
    expect(await fetchIdea(idea.id)).toMatchObject({ idea: { meta: { qaModel: 'claude-sonnet-4-5' } } });
    await model.getByLabel('Answering model', { exact: true }).fill('haiku; rm -rf ~');
    await model.getByRole('button', { name: 'Save model', exact: true }).click();
    await settings.getByText(/A model name is letters, digits/).waitFor();
    expect(await fetchIdea(idea.id)).toMatchObject({ idea: { meta: { qaModel: 'claude-sonnet-4-5' } } });

    await page.getByRole('link', { name: '← Ideas' }).click();
    await ideaLink(page, 'Final name').waitFor();
    expect(await ideaLink(page, 'Draft name').count()).toBe(0);

    await ideaLink(page, 'Final name').click();
    await ideaHeading(page, 'Final name').waitFor();
    const dialog = page.getByRole('dialog', { name: 'Delete “Final name”?' });
    await chooseIdeaAction(page, 'Delete idea');
    await dialog.getByRole('button', { name: 'Keep it', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await fetchIdea(idea.id)).status).toBe(200);
    expect(existsSync(folder)).toBe(true);

    await chooseIdeaAction(page, 'Delete idea');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Ideas', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect((await fetchIdea(idea.id)).status).toBe(404);
    expect(existsSync(folder), 'the idea`s folder on the VM is gone').toBe(false);
    expect(await ideaLink(page, 'Final name').count()).toBe(0);
  });

  for (const device of [
    { width: 1440, height: 900, isMobile: false, hasTouch: false },
    { width: 390, height: 844, isMobile: true, hasTouch: true },
  ]) {
    const size = `${String(device.width)}×${String(device.height)}`;
    it(`at ${size}: says how many ideas another Catalyst made on the folder, and shows them when asked`, async () => {
      // Another Catalyst's idea on the fixture's ideas folder (issue 40, item 8): signed with another id.
      const { service } = suite.fixture;
      const theirs = await service.createIdea(`Their idea ${size}`);
      const metaPath = join(service.ideasRoot, theirs.id, 'meta.json');
      const meta = JSON.parse(await readFile(metaPath, 'utf8')) as Record<string, unknown>;
      expect(meta['madeBy'], 'the fixture signs its ideas').toMatch(/^[0-9a-f]{16}$/);
      await writeFile(metaPath, JSON.stringify({ ...meta, madeBy: 'ffffffffffffffff' }));
      const ours = await service.createIdea(`Our idea ${size}`);

      const page = await suite.openLoggedInPage({ device });
      const note = page.getByRole('note', { name: 'Ideas of another Catalyst' });
      await note
        .getByText(/on vm (was|were) made by another Catalyst that uses the same ideas folder\./)
        .waitFor();
      await ideaLink(page, `Our idea ${size}`).waitFor();
      expect(await ideaLink(page, `Their idea ${size}`).count(), 'hidden until asked').toBe(0);
      await note.getByRole('button', { name: 'Show them' }).click();
      const row = page.getByRole('listitem').filter({ has: ideaLink(page, `Their idea ${size}`) });
      await row.getByText(/made by another Catalyst/).waitFor();
      expect(
        await page
          .getByRole('listitem')
          .filter({ has: ideaLink(page, `Our idea ${size}`) })
          .getByText(/made by another Catalyst/)
          .count(),
      ).toBe(0);
      await saveScreenshot(page, 'manage', `ideas of another Catalyst shown ${size}`);

      // The choice is this browser's: a reload keeps it; "Hide them" hides them again.
      await page.reload();
      await row.getByText(/made by another Catalyst/).waitFor();
      await note.getByRole('button', { name: 'Hide them' }).click();
      await ideaLink(page, `Their idea ${size}`).waitFor({ state: 'detached' });
      expect(await fetchIdea(ours.id)).toMatchObject({ status: 200 });
      for (const id of [theirs.id, ours.id]) {
        expect((await service.api(`/api/ideas/${id}`, { method: 'DELETE' })).status).toBe(204);
      }
    });
  }
});
