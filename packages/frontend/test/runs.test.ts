import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  collectTexts,
  colorQuestion,
  longRunningCommand,
  stall,
  streamedText,
  text,
  toolUse,
  waitUntil,
} from '@catalyst/testkit';
import { scanRunProcessesIn } from '../../backend/test/host-test-kit.ts';
import { toolResultsOf } from '../../backend/test/question-client.ts';
import { useBrowserSuite } from './browser-harness.ts';
import {
  chooseBuild,
  claudeTexts,
  createIdeaFromList,
  openIdea,
  sendMessage,
  statusBadge,
  toolCards,
  transcript,
  userMessages,
  waitForRunSummary,
  watchForStopping,
} from './idea-page.ts';

// A person's runs in the browser, end to end: the built app, Catalyst, the real claude CLI over the test kit's
// sshd, and the scripted model behind it.

const suite = useBrowserSuite();

describe('runs in the browser', () => {
  it('creates an idea from the list, and a chat answer streams into its page', async () => {
    const { model } = suite.fixture;
    const page = await suite.openLoggedInPage();
    await createIdeaFromList(page, { title: 'Greeting bot', description: 'Says hello to people.' });
    const base = model.requests.length;
    model.enqueue(streamedText('Hello ', 'from the ', 'VM, in parts.'));
    await sendMessage(page, 'Say hello, please.');

    await userMessages(page).filter({ hasText: 'Say hello, please.' }).waitFor();
    await claudeTexts(page).filter({ hasText: 'Hello from the VM, in parts.' }).waitFor();
    const summary = await waitForRunSummary(page, 'Completed');
    expect(await claudeTexts(page).count(), 'the deltas grew one article').toBe(1);
    expect(await claudeTexts(page).getAttribute('data-streaming')).not.toBe('true');
    expect(await summary.count()).toBe(1);
    expect(collectTexts(await model.waitForRequest(base))).toContain('Say hello, please.');
    await statusBadge(page, 'chatting').waitFor();
  });

  it('shows partial text while the model is still writing', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Slow writer');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Slow writer' });
    model.enqueue(stall('Let me think about'));
    await sendMessage(page, 'Take your time.');

    const partial = claudeTexts(page).filter({ hasText: 'Let me think about' });
    await partial.waitFor();
    expect(await partial.getAttribute('data-streaming')).toBe('true');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await waitForRunSummary(page, 'Cancelled');
    expect(await partial.getAttribute('data-streaming'), 'nothing streams once the run ended').not.toBe(
      'true',
    );
  });

  it('builds: the Write shows as a diff, the file is on the VM, and the idea is built', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Hello script');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Hello script' });
    await chooseBuild(page);
    const target = join(service.projectDir(idea.id), 'hello.py');
    const content = 'print("hello")\nprint("bye")\n';
    model.enqueue(toolUse('Write', { file_path: target, content }), text('Wrote hello.py.'));
    await sendMessage(page, 'Write hello.py.');

    await userMessages(page).filter({ hasText: 'Write hello.py.' }).waitFor();
    const diff = toolCards(page, 'Write').getByLabel(`Diff of ${target}`, { exact: true });
    await diff.waitFor();
    expect(await diff.locator('.diff-add').allInnerTexts()).toEqual([
      expect.stringContaining('print("hello")'),
      expect.stringContaining('print("bye")'),
    ]);
    expect(await diff.locator('.diff-del').count()).toBe(0);
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Wrote hello.py.' }).waitFor();
    expect(await readFile(target, 'utf8')).toBe(content);
    await statusBadge(page, 'built').waitFor();
  });

  it('asks a question: the person`s answer reaches the model and the run goes on', async () => {
    const { service, model } = suite.fixture;
    const idea = await service.createIdea('Pick a color');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Pick a color' });
    const base = model.requests.length;
    model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
    await sendMessage(page, 'Pick a color with me.');

    const card = transcript(page).getByRole('region', { name: 'Question: Color', exact: true });
    const question = card.getByRole('group', { name: colorQuestion.question });
    await question.getByText('Cool color').waitFor();
    await question.getByRole('radio', { name: 'Blue' }).check();
    await card.getByRole('button', { name: 'Submit answer' }).click();

    await card.getByText('Answered by you').waitFor();
    await waitForRunSummary(page, 'Completed');
    await claudeTexts(page).filter({ hasText: 'Blue it is.' }).waitFor();
    // The card is now the record of the answer, nothing left to click.
    expect(await card.getByRole('definition').textContent()).toBe('Blue');
    expect(await card.getByRole('radio').count()).toBe(0);
    const results = await toolResultsOf(model, base + 1);
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toContain(`"${colorQuestion.question}"="Blue"`);
  });

  it('cancels a build while a Bash tool runs, and nothing is left on the VM', async () => {
    const { service, model, claudePath } = suite.fixture;
    const idea = await service.createIdea('Sleepy build');
    const page = await suite.openLoggedInPage();
    await openIdea(page, { id: idea.id, title: 'Sleepy build' });
    await chooseBuild(page);
    const command = longRunningCommand(297);
    model.enqueue(toolUse('Bash', { command, description: 'Wait a long time' }));
    await sendMessage(page, 'Wait for a long time.');

    await toolCards(page, 'Bash').filter({ hasText: command }).waitFor();
    // The run's own processes on the VM, found by run tag and place (never a sleep another run left).
    const runProcesses = () => scanRunProcessesIn(join(service.ideasRoot, idea.id));
    await waitUntil(async () => (await runProcesses()).some((p) => p.cmdline === 'sleep 297'), {
      timeoutMs: 20_000,
      what: "the Bash tool's sleep on the VM",
    });
    expect((await runProcesses()).some((p) => p.cmdline.startsWith(claudePath))).toBe(true);
    // The run's tag: once it ends, the idea's next claude (pre-warmed in the composer's mode) carries another.
    const runTags = new Set((await runProcesses()).map((p) => p.runTag));
    await page.getByText(/^Claude is working… what you send now waits in the queue/).waitFor();
    await page.getByRole('button', { name: 'Queue' }).waitFor();
    const sawStopping = await watchForStopping(page);
    await page.getByRole('button', { name: 'Cancel run' }).click();

    await waitForRunSummary(page, 'Cancelled');
    expect(await sawStopping(), 'the button read "Stopping…", disabled, until the run ended').toBe(true);
    await waitUntil(async () => !(await runProcesses()).some((p) => runTags.has(p.runTag)), {
      timeoutMs: 15_000,
      what: 'nothing of the run left on the VM',
    });
    await page.getByRole('button', { name: 'Cancel run' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });
});
