import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunMode } from '@catalyst/protocol';
import { text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';
import { expectNothingLeft, sessionDirs, sessionOf } from './session-test-kit.ts';

// Mode switches (issue 30): the page says which mode its composer shows, and the idea's waiting claude is of that
// mode, so the first Build after a chat starts warm. A pre-warmed claude that never took a turn wrote nothing,
// so it is stopped at once when the other mode is wanted. What the service does with a switch alone (a pre-warm
// after a run of the other mode, an unknown idea) is proven on the in-process host: fast/mode-switch.test.ts.

const fixture = useServiceFixture();

/** The modes of the idea's claude processes on the VM: chat's command restricts its tools (`--tools`), build's not. */
async function claudeModes(ideaId: string): Promise<RunMode[]> {
  const processes = await fixture.runProcesses(ideaId);
  return processes
    .filter((process) => process.cmdline.startsWith(fixture.claudePath))
    .map((process) => (process.cmdline.includes('--tools') ? 'chat' : 'build'));
}

async function switchTo(client: IdeaClient, ideaId: string, mode: RunMode): Promise<string> {
  client.send({ type: 'mode', ideaId, mode });
  await waitUntil(
    async () =>
      (await claudeModes(ideaId)).join() === mode && (await sessionDirs(fixture, ideaId)).length === 1,
    { timeoutMs: 15_000, what: `one claude on the VM, of ${mode} mode, in the idea's one session` },
  );
  const [session] = await sessionDirs(fixture, ideaId);
  if (session === undefined) throw new Error('no session directory on the VM');
  return session;
}

/** The lines of the CLI's transcript of the idea's one Claude session on the VM. */
async function transcript(ideaId: string): Promise<string[]> {
  const root = join(fixture.sshd.users.bash.home, '.claude', 'projects');
  const files: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    // The CLI names the folder after the project's path, which holds the idea's id.
    if (entry.isFile() && entry.parentPath.includes(ideaId)) files.push(join(entry.parentPath, entry.name));
  }
  expect(files).toHaveLength(1);
  return (await readFile(files[0] ?? '', 'utf8')).split('\n').filter((line) => line !== '');
}

function typeOf(line: string): unknown {
  const parsed: unknown = JSON.parse(line);
  return typeof parsed === 'object' && parsed !== null && 'type' in parsed ? parsed.type : undefined;
}

describe('mode switches', () => {
  it('keeps a claude of the composer’s mode waiting, stops an unused one of the other, and runs the Build in it', async () => {
    const idea = await fixture.service.createIdea('Switches');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('Talked.'));
    const chat = await client.run(idea.id, 'chat', 'Talk first.');
    expect(chat.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await claudeModes(idea.id)).toEqual(['chat']);

    // The chat's claude took a turn: it ends (and is waited for), then a build claude resumes its session.
    const firstBuild = await switchTo(client, idea.id, 'build');
    expect(firstBuild).not.toBe(sessionOf(chat));
    const before = await transcript(idea.id);
    // Back and forth: a build claude that never took a turn is stopped at once. Stopped, the CLI appends at most
    // its exit bookkeeping to the session (its mode, its cost so far; nothing when stopped before it was ready):
    // the conversation is as it was.
    await switchTo(client, idea.id, 'chat');
    const build = await switchTo(client, idea.id, 'build');
    const after = await transcript(idea.id);
    expect(after.slice(0, before.length)).toEqual(before);
    for (const line of after.slice(before.length)) expect(['mode', 'cost-state']).toContain(typeOf(line));

    fixture.model.enqueue(text('Built.'));
    const run = await client.run(idea.id, 'build', 'Build it.');
    expect(run.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    // Run in the claude pre-warmed for it, not in one it started: that session, and no other on the VM.
    expect(sessionOf(run)).toBe(build);
    expect(await sessionDirs(fixture, idea.id)).toEqual([build]);
    // The conversation went on in the idea's one Claude session.
    expect(JSON.stringify(fixture.model.requests.at(-1))).toContain('Talk first.');

    client.close();
    await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    await expectNothingLeft(fixture, idea.id);
  });

  it('answers the chat after a build whose background command its process took down, not with the CLI’s own turn', async () => {
    // Measured on 2.1.331: a Bash call run in the background that has not ended when its claude exits (here, the
    // build's process, ended for the chat's mode) is told to the resumed session first, in a turn of the CLI's own
    // whose result (`origin: task-notification`, no turns) came before the chat's own answer and was taken for it.
    const idea = await fixture.service.createIdea('Background command');
    const go = join(fixture.service.projectDir(idea.id), 'go');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', {
        command: waitForFile(go),
        description: 'Wait in the background',
        run_in_background: true,
      }),
      text('Started it.'),
      text('The chat’s own answer.'),
    );
    const build = await client.run(idea.id, 'build', 'Start it in the background.');
    expect(build.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    const chat = await client.run(idea.id, 'chat', 'And now?');
    expect(chat.at(-1)).toMatchObject({
      type: 'run:ended',
      outcome: 'completed',
      result: { result: 'The chat’s own answer.' },
    });
    // The background command went with the build's process.
    expect(
      client
        .events()
        .some(
          (event) =>
            event.type === 'claude:event' &&
            event.message.type === 'system' &&
            event.message.subtype === 'task_notification',
        ),
    ).toBe(true);
    client.close();
  });
});
